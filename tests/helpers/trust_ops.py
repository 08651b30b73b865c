"""Small ops with C code that alias, destroy, release the GIL or call back: what the trust tests run."""

import time

import numpy as np

import opkit
import opkit.tensor as ot
from opkit import Apply, Op


class Transpose(Op):
    """A view through PyArray_Transpose (declared in view_map)."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.tensor(x.dtype, shape=(None,) * x.ndim)])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].T

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_Transpose({x}, NULL);
        if (!{z}) {sub['fail']}
        """

    def c_code_cache_version(self):
        return (1,)


class AddOneInplace(Op):
    """Add 1 to a float64 vector in place and return it (declared in destroy_map)."""

    __props__ = ("fold",)
    destroy_map = {0: [0]}

    def __init__(self, fold=True):
        self.fold = fold

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        assert x.dtype == "float64" and x.ndim == 1
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        x += 1
        output_storage[0][0] = x

    def do_constant_folding(self, node):
        return self.fold

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        for (npy_intp i = 0; i < PyArray_DIM({x}, 0); ++i) *(double*)PyArray_GETPTR1({x}, i) += 1.0;
        Py_XDECREF({z});
        {z} = {x};
        Py_INCREF({z});
        """

    def c_code_cache_version(self):
        return (1,)


class SlowScaleNoGil(Op):
    """z = 2 * x in C with the GIL released for the loop (and a little busy work to overlap threads)."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        {{
        PyArrayObject* src = (PyArrayObject*)PyArray_FROM_OTF((PyObject*){x}, NPY_FLOAT64, NPY_ARRAY_IN_ARRAY);
        if (!src) {sub['fail']}
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_EMPTY(PyArray_NDIM(src), PyArray_DIMS(src), NPY_FLOAT64, 0);
        if (!{z}) {{ Py_DECREF(src); {sub['fail']} }}
        const double* in = (const double*)PyArray_DATA(src);
        double* out = (double*)PyArray_DATA({z});
        npy_intp n = PyArray_SIZE(src);
        Py_BEGIN_ALLOW_THREADS
        volatile double sink = 0;
        for (int r = 0; r < 2000; ++r) sink += r;
        for (npy_intp i = 0; i < n; ++i) out[i] = 2.0 * in[i];
        Py_END_ALLOW_THREADS
        Py_DECREF(src);
        }}
        """

    def c_code_cache_version(self):
        return (1,)


class PyTimesThree(Op):
    """A Python-only op (no C): splits a C graph into regions joined by Python."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        time.sleep(0)  # let another thread run in the middle of the graph
        output_storage[0][0] = np.asarray(inputs[0] * 3, dtype=node.outputs[0].dtype)


class CallsBack(Op):
    """perform() calls `self.function` on a shorter input: a function re-entered from inside itself."""

    __props__ = ()
    function = None

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        inner = type(self).function(x[1:]) if len(x) > 1 else np.zeros(0)
        output_storage[0][0] = np.concatenate([x[:1] + 100, inner + 1000]) if len(x) else x.copy()


class FailsSilently(Op):
    """C code that jumps to FAIL without setting a Python exception."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{sub['fail']}"

    def c_code_cache_version(self):
        return (1,)


LINKER_MODES = {
    "c": opkit.Mode(linker="c"),
    "cop": opkit.Mode(linker="cop"),
    "py": opkit.Mode(linker="py"),
    "FAST_COMPILE": "FAST_COMPILE",
}


class EitherView(Op):
    """Returns its second input itself; declares that the output may view either input."""

    __props__ = ()
    view_map = {0: [0, 1]}

    def make_node(self, x, y):
        return Apply(self, [x, y], [y.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[1]

    def c_code(self, node, name, inputs, outputs, sub):
        (_, y), (z,) = inputs, outputs
        return f"Py_XDECREF({z}); {z} = {y}; Py_INCREF({z});"

    def c_code_cache_version(self):
        return (1,)


def copy_and_update_c(x, z, fail, update):
    """Return C that sets float64 array `z` to a copy of `x`, then runs `update` on each element `v`."""
    return f"""
    Py_XDECREF({z});
    {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
    if (!{z}) {fail}
    for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i) {{
        double& v = ((double*)PyArray_DATA({z}))[i];
        {update};
    }}
    """

"""TensorType's C interface: a ``PyArrayObject*`` checked for ndim and dtype on extract."""

from __future__ import annotations

import numpy as np


def c_dtype(dtype):
    """Return the numpy C type name for a dtype (float64 -> npy_float64)."""
    return "npy_bool" if str(dtype) == "bool" else f"npy_{np.dtype(dtype).name}"


def c_typenum(dtype):
    """Return the numpy type-number constant for a dtype (float64 -> NPY_FLOAT64)."""
    return "NPY_BOOL" if str(dtype) == "bool" else f"NPY_{np.dtype(dtype).name.upper()}"


class TensorCInterface:
    """C methods of TensorType (mixed into the class)."""

    def c_declare(self, name, sub, check_input=True):
        return f"PyArrayObject* {name} = NULL;\ntypedef {c_dtype(self.dtype)} dtype_{name};"

    def c_init(self, name, sub):
        return f"{name} = NULL;"

    def c_extract(self, name, sub, check_input=True):
        check = ""
        if check_input:
            check = f"""
if (!PyArray_Check(py_{name})) {{
    PyErr_Format(PyExc_TypeError, "expected a numpy.ndarray, got %s", Py_TYPE(py_{name})->tp_name);
    {sub['fail']}
}}
if (PyArray_NDIM((PyArrayObject*)py_{name}) != {self.ndim}) {{
    PyErr_Format(PyExc_TypeError, "expected an array with ndim {self.ndim}, got ndim %d",
                 PyArray_NDIM((PyArrayObject*)py_{name}));
    {sub['fail']}
}}
if (PyArray_TYPE((PyArrayObject*)py_{name}) != {c_typenum(self.dtype)}) {{
    PyErr_Format(PyExc_TypeError, "expected an array of dtype {self.dtype}, got typenum %d",
                 PyArray_TYPE((PyArrayObject*)py_{name}));
    {sub['fail']}
}}
if (!PyArray_ISALIGNED((PyArrayObject*)py_{name}) || PyArray_ISBYTESWAPPED((PyArrayObject*)py_{name})) {{
    PyErr_SetString(PyExc_TypeError, "expected an aligned array in native byte order");
    {sub['fail']}
}}"""
        return f"{check}\n{name} = (PyArrayObject*)py_{name};\nPy_INCREF({name});"

    def c_sync(self, name, sub):
        return f"""
if (!{name}) {{
    Py_XDECREF(py_{name});
    Py_INCREF(Py_None);
    py_{name} = Py_None;
}} else if ((void*)py_{name} != (void*){name}) {{
    Py_XDECREF(py_{name});
    py_{name} = (PyObject*){name};
    Py_INCREF(py_{name});
}}"""

    def c_cleanup(self, name, sub):
        return f"Py_XDECREF({name});\n{name} = NULL;"

    def c_element_type(self):
        return c_dtype(self.dtype)

    def c_headers(self, c_compiler=None):
        return ["<numpy/arrayobject.h>", "<cmath>"]

    def c_code_cache_version(self):
        return (1,)


DEEP_COPY = """
Py_XDECREF(%(oname)s);
%(oname)s = (PyArrayObject*)PyArray_NewCopy(%(iname)s, NPY_ANYORDER);
if (!%(oname)s) %(fail)s
"""

VIEW = """
Py_XDECREF(%(oname)s);
%(oname)s = %(iname)s;
Py_XINCREF(%(oname)s);
"""

SHAPE = """
{
    npy_intp length = PyArray_NDIM(%(iname)s);
    if (!%(oname)s || PyArray_DIMS(%(oname)s)[0] != length) {
        Py_XDECREF(%(oname)s);
        %(oname)s = (PyArrayObject*)PyArray_EMPTY(1, &length, NPY_INT64, 0);
        if (!%(oname)s) %(fail)s
    }
    for (npy_intp k = 0; k < length; ++k)
        ((npy_int64*)PyArray_DATA(%(oname)s))[k] = PyArray_DIMS(%(iname)s)[k];
}
"""

SHAPE_I = """
if (!%(oname)s) {
    %(oname)s = (PyArrayObject*)PyArray_EMPTY(0, NULL, NPY_INT64, 0);
    if (!%(oname)s) %(fail)s
}
((npy_int64*)PyArray_DATA(%(oname)s))[0] = PyArray_DIMS(%(iname)s)[%(i)s];
"""

SHAPE_I_CHECK = """
if (PyArray_NDIM(%(iname)s) <= %(i)s) {
    PyErr_Format(PyExc_IndexError, "Shape_i(%(i)s) of an array with %%d dimensions", PyArray_NDIM(%(iname)s));
    %(fail)s
}
"""


def register_tensor_c_code(tensor_type_class):
    """Register the built-in ops' C code for TensorType."""
    from opkit.core import builtin_ops

    builtin_ops.register_deep_copy_op_c_code(tensor_type_class, DEEP_COPY, version=(1,))
    builtin_ops.register_view_op_c_code(tensor_type_class, VIEW, version=(1,))
    builtin_ops.register_shape_c_code(tensor_type_class, SHAPE, version=(1,))
    builtin_ops.register_shape_i_c_code(tensor_type_class, SHAPE_I, SHAPE_I_CHECK, version=(1,))

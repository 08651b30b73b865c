"""py_<name> of a variable another node computed is that value's object when a node's C reads it.

Theano's CLinker keeps each variable's PyObject in step with its C value, and
ported C reads it (Images2Neibs: ``PyArray_TYPE(py_%(ten4)s)``). In opkit's
one module per graph, and in the glue of an incremental (chunked) build, it is
synced right after the node computing it (opkit.cop.generate.codegen._sync_read_objects).
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.cop.store.objects import object_events
from opkit.cop.incremental import INCREMENTAL_ABOVE
from helpers.caches import seeded

MODES = {"FAST_RUN": "FAST_RUN", "c": opkit.Mode(linker="c"), "cop": opkit.Mode(linker="cop"),
         "c, no optimizer": opkit.Mode(linker="c", optimizer=None)}


class PyInfo(Op):
    """[typenum, ndim, size, py_x is x, sum] of its input, each read from py_<input> (the Python object)."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.dvector()])

    def c_code(self, node, name, inputs, outputs, sub):
        x, z, fail = inputs[0], outputs[0], sub["fail"]
        return f"""
if (!PyArray_Check(py_{x})) {{
    PyErr_Format(PyExc_TypeError, "PyInfo: py_ is a %s, not an array", Py_TYPE(py_{x})->tp_name);
    {fail}
}}
{{
    PyArrayObject* px = (PyArrayObject*)py_{x};
    PyObject* flat = PyArray_Ravel(px, NPY_CORDER);
    if (!flat) {fail}
    PyObject* total = PyArray_Sum((PyArrayObject*)flat, 0, NPY_DOUBLE, NULL);
    Py_DECREF(flat);
    if (!total) {fail}
    double sum = PyFloat_AsDouble(total);
    Py_DECREF(total);
    npy_intp five = 5;
    Py_XDECREF({z});
    {z} = (PyArrayObject*)PyArray_EMPTY(1, &five, NPY_FLOAT64, 0);
    if (!{z}) {fail}
    double* out = (double*)PyArray_DATA({z});
    out[0] = PyArray_TYPE(px);
    out[1] = PyArray_NDIM(px);
    out[2] = (double)PyArray_SIZE(px);
    out[3] = (void*)px == (void*){x};
    out[4] = sum;
}}"""

    def c_code_cache_version(self):
        return (1,)


def expected(value):
    value = np.asarray(value)
    return np.array([value.dtype.num, value.ndim, value.size, 1.0, value.sum(dtype=np.float64)])


def intermediates(x):
    """Values of several dtypes and shapes, each computed by a node from x (a float64 matrix)."""
    return [x * 2, ot.cast(x * 3, "int32"), ot.cast(x + 1, "float32"), x > 0, ot.cast(x, "uint8"),
            (x * 0.5).T, x[1:, ::-1], ot.cast(x, "int64").sum(axis=0)]


def numpy_intermediates(x):
    return [x * 2, (x * 3).astype("int32"), (x + 1).astype("float32"), x > 0, x.astype("uint8"),
            (x * 0.5).T, x[1:, ::-1], x.astype("int64").sum(axis=0)]


# Mode(linker="c") is FAST_RUN spelled out (the same rewrites, the same module): soak
@pytest.mark.parametrize("mode", [pytest.param(m, marks=pytest.mark.soak) if m == "c" else m for m in MODES], ids=str)
def test_py_of_intermediates_of_every_dtype_is_their_value(mode):
    x = ot.dmatrix("x")
    f = opkit.function([x], [PyInfo()(v) for v in intermediates(x)], mode=MODES[mode])
    # Two shapes one after the other: an intermediate kept from the last call has the old shape.
    for value in (np.arange(12.0).reshape(3, 4) - 5, np.arange(30.0).reshape(5, 6) - 14, np.zeros((2, 0))):
        for got, want in zip(f(value), numpy_intermediates(value)):
            np.testing.assert_array_equal(got, expected(want))


@pytest.mark.parametrize("incremental", [True, False])
def test_py_of_intermediates_in_an_incremental_build(tmp_path, incremental):
    """A graph of more nodes than INCREMENTAL_ABOVE (two rounds of the five expressions: 32 nodes): the
    elementwise nodes are chunk objects, the PyInfo nodes (their C reads py_) stay in the glue, which syncs
    py_ after each chunk node's call. Without incremental builds, the same graph is one module whose nodes
    are functions (quick_run)."""
    x, i, g = ot.dmatrix("x"), ot.imatrix("i"), ot.fmatrix("g")
    graph = [lambda x, i, g: x * 2, lambda x, i, g: i * 3, lambda x, i, g: g + 1, lambda x, i, g: x > 0,
             lambda x, i, g: (i * 2).T]
    read = [(k, make, make(x, i, g) + k) for k in range(2) for make in graph]
    mode = opkit.Mode(linker="c", optimizer=None)
    with opkit.config.change_flags(compiledir=seeded(tmp_path), incremental=incremental):
        built = object_events["built"]
        f = opkit.function([x, i, g], [PyInfo()(v) for _, _, v in read], mode=mode)
        assert len(f.maker.fgraph.toposort()) > INCREMENTAL_ABOVE
        for shape in ((2, 3), (4, 5), (3, 0)):
            values = (np.arange(np.prod(shape), dtype="float64").reshape(shape) - 2,
                      np.arange(np.prod(shape), dtype="int32").reshape(shape) - 3,
                      np.arange(np.prod(shape), dtype="float32").reshape(shape) / 2)
            for got, (k, make, v) in zip(f(*values), read):
                np.testing.assert_array_equal(got, expected((make(*values) + k).astype(v.dtype)))
        assert (object_events["built"] > built) == incremental  # the chunked path was taken, or not


def test_a_module_whose_c_reads_no_py_object_has_no_extra_sync():
    """The extra sync is for names some node reads: a graph of opkit's own ops renders as before."""
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.generate.region import Region

    x = ot.dvector("x")
    y = (x * 2).sum()
    f = opkit.function([x], [PyInfo()(x * 2), y], mode=opkit.Mode(linker="c", optimizer=None))
    nodes = f.maker.fgraph.toposort()
    parts = collect_module(Region.from_nodes(nodes, lambda v: True))
    synced = [n for n in parts.context["nodes"] if "sync" in n]
    assert len(synced) == 1 and "py_" in synced[0]["sync"]
    plain = collect_module(Region.from_nodes([n for n in nodes if not isinstance(n.op, PyInfo)],
                                             lambda v: True))
    assert not any("sync" in n for n in plain.context["nodes"])

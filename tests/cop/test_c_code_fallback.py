"""c_code raising MethodNotDefined runs the node's perform (Theano/PyTensor); a C failure is the op's error.

The linkers ask c_code itself whether a node has C (opkit.cop.generate.cinterface.op_has_c):
an op raising MethodNotDefined for a case (no BLAS, a dtype) runs its perform for
that node, and the rest of the graph stays in C. A c_code returning something
other than a string is an error naming the op. C that sets a Python exception
(with or without reaching FAIL) raises that exception, not CPython's SystemError.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from opkit.core.type import MethodNotDefined
from helpers.caches import seeded

MODES = {"FAST_RUN": "FAST_RUN", "c": opkit.Mode(linker="c"), "cop": opkit.Mode(linker="cop"),
         "c, no optimizer": opkit.Mode(linker="c", optimizer=None)}


class MaybeC(Op):
    """z = 2 * x + 1; C only when `use_c`, else c_code raises MethodNotDefined (perform runs)."""

    __props__ = ("use_c",)

    def __init__(self, use_c):
        self.use_c = use_c

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.dvector()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0], dtype="float64") * 2 + 1

    def c_support_code(self, **kwargs):
        raise MethodNotDefined("c_support_code")  # "none", as in Theano's CLinker

    def c_code(self, node, name, inputs, outputs, sub):
        if not self.use_c:
            raise MethodNotDefined("c_code", type(self).__name__, "no C for this case")
        x, z, fail = inputs[0], outputs[0], sub["fail"]
        return f"""
Py_XDECREF({z});
{z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);
if (!{z}) {fail}
for (npy_intp i = 0; i < PyArray_DIMS({x})[0]; ++i)
    ((double*)PyArray_DATA({z}))[i] = 2 * *(double*)PyArray_GETPTR1({x}, i) + 1;"""

    def c_code_cache_version(self):
        return (1,)


class ReturnsNone(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def c_code(self, node, name, inputs, outputs, sub):
        return None


class Raises(Op):
    """C that sets ValueError and reaches FAIL ("fail"), sets it and goes on ("set"), or fails without one."""

    __props__ = ("how",)

    def __init__(self, how):
        self.how = how

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        x, z, fail = inputs[0], outputs[0], sub["fail"]
        copy = f"Py_XDECREF({z}); {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER); if (!{z}) {fail}"
        if self.how == "fail":
            return f'{copy}\nPyErr_SetString(PyExc_ValueError, "Raises: my own error"); {fail}'
        if self.how == "set":
            return f'{copy}\nPyErr_SetString(PyExc_ValueError, "Raises: set and not failed");'
        return f"{copy}\n{fail}"

    def c_code_cache_version(self):
        return (1,)


VALUE = np.array([-1.5, 0.0, 2.0, 7.25])


@pytest.mark.parametrize("mode", list(MODES), ids=str)
@pytest.mark.parametrize("use_c", [False, True])
def test_an_op_without_c_for_this_node_runs_perform_alone_and_between_c_ops(mode, use_c):
    x = ot.dvector("x")
    alone = opkit.function([x], MaybeC(use_c)(x), mode=MODES[mode])
    np.testing.assert_array_equal(alone(VALUE), VALUE * 2 + 1)
    between = opkit.function([x], MaybeC(use_c)(ot.exp(x)) + x, mode=MODES[mode])
    np.testing.assert_allclose(between(VALUE), np.exp(VALUE) * 2 + 1 + VALUE, rtol=1e-15)
    order = between.maker.fgraph.toposort()
    assert any(isinstance(n.op, MaybeC) for n in order)


def test_whether_a_node_has_c_asks_its_c_code():
    from opkit.cop.generate.cinterface import op_has_c

    x = ot.dvector("x")
    assert not op_has_c(MaybeC(False)(x).owner)
    assert op_has_c(MaybeC(True)(x).owner)


def test_a_c_code_returning_none_is_an_error_naming_the_op():
    x = ot.dvector("x")
    for mode in ("FAST_RUN", opkit.Mode(linker="cop")):
        with pytest.raises(TypeError, match=r"ReturnsNone\.c_code returned NoneType for .*not a string of C code"
                                            r"(.|\n)*MethodNotDefined"):
            opkit.function([x], ReturnsNone()(x * 2), mode=mode)(VALUE)


@pytest.mark.parametrize("mode", list(MODES), ids=str)
def test_c_that_sets_an_exception_raises_it_with_the_node_named(mode):
    x = ot.dvector("x")
    for how, error, message in (("fail", ValueError, "Raises: my own error"),
                                ("set", ValueError, "Raises: set and not failed"),
                                ("none", RuntimeError, r"C code failed \(reached FAIL\) without setting a Python "
                                                       r"exception(.|\n)*Raises")):
        f = opkit.function([x], Raises(how)(ot.exp(x)) * 2, mode=MODES[mode])
        with pytest.raises(error, match=message) as info:
            f(VALUE)
        assert not isinstance(info.value, SystemError)
        if how != "none":
            assert "Raises" in "\n".join(getattr(info.value, "__notes__", [])) + str(info.value)
        # The function still works after the failure (nothing left set).
        ok = opkit.function([x], ot.exp(x) * 2, mode=MODES[mode])
        np.testing.assert_allclose(ok(VALUE), np.exp(VALUE) * 2)


@pytest.mark.parametrize("incremental", [True, False])
def test_c_that_sets_an_exception_in_a_big_graph_raises_it(tmp_path, incremental):
    """More nodes than QUICK_RUN_ABOVE: each node a function of its own, or a call into a chunk object."""
    from opkit.cop.generate.codegen import QUICK_RUN_ABOVE

    x = ot.dvector("x")
    y = x
    # Nodes of an op with a few lines of C (MaybeC's loop; g++ takes far longer over as many elementwise ops,
    # each a broadcasting loop nest): 3 more than QUICK_RUN_ABOVE with Raises and * 2.
    for _ in range(QUICK_RUN_ABOVE + 1):
        y = MaybeC(True)(y)
    with opkit.config.change_flags(compiledir=seeded(tmp_path), incremental=incremental):
        for how, message in (("set", "Raises: set and not failed"), ("fail", "Raises: my own error")):
            f = opkit.function([x], Raises(how)(y) * 2, mode=opkit.Mode(linker="c", optimizer=None))
            with pytest.raises(ValueError, match=message) as info:
                f(VALUE)
            assert "Raises" in "\n".join(getattr(info.value, "__notes__", []))

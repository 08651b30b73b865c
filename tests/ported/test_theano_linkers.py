"""Theano's and PyTensor's linker interface: ``CLinker().accept(fgraph).make_function()``, OpWiseCLinker, DualLinker.

The graphs are Theano's own test graphs (gof/tests/test_cc.py: a C ``double`` type and ops
whose ``BadSub`` has a wrong perform and a right C) and tensor graphs of opkit's C ops, checked
against numpy. Every linker is reached through Theano's module paths and PyTensor's.
"""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Constant, CType, Op, Variable
from opkit.compat.theano.gof import cc, link
from opkit.compat.theano.gof.fg import FunctionGraph
from opkit.link.lockstep_linkers import OutputMismatch

CLinker, OpWiseCLinker, DualLinker, PerformLinker = cc.CLinker, cc.OpWiseCLinker, cc.DualLinker, link.PerformLinker


class TDouble(CType):
    """Theano's test type: a C double, boxed as a Python float."""

    def filter(self, data, strict=False, allow_downcast=None):
        return float(data)

    def c_declare(self, name, sub, check_input=True):
        return f"double {name};"

    def c_init(self, name, sub):
        return f"{name} = 0;"

    def c_literal(self, data):
        return repr(float(data))

    def c_extract(self, name, sub, check_input=True, **kwargs):
        return f"""
        if (!PyFloat_Check(py_{name})) {{ PyErr_SetString(PyExc_TypeError, "not a double!"); {sub['fail']} }}
        {name} = PyFloat_AsDouble(py_{name});"""

    def c_sync(self, name, sub):
        return f"Py_XDECREF(py_{name}); py_{name} = PyFloat_FromDouble({name});"

    def c_cleanup(self, name, sub):
        return ""

    def c_code_cache_version(self):
        return (1,)

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))


tdouble = TDouble()


def double(name):
    return Variable(tdouble, None, None, name=name)


class Binary(Op):
    """Theano's test op: two doubles in, one out; ``c_op`` is the C operator, ``impl`` perform's."""

    __props__ = ()

    def make_node(self, x, y):
        return Apply(self, [x, y], [double(type(self).__name__ + "_R")])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = self.impl(*inputs)

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} {self.c_op} {inputs[1]};"

    def c_code_cache_version(self):
        return (1,)


class Add(Binary):
    c_op = "+"

    def impl(self, x, y):
        return x + y


class Mul(Binary):
    c_op = "*"

    def impl(self, x, y):
        return x * y


class Div(Binary):
    c_op = "/"

    def impl(self, x, y):
        return x / y


class BadSub(Binary):
    """Right in C, wrong in Python: what DualLinker is for."""

    c_op = "-"

    def impl(self, x, y):
        return -10.0


class AddFail(Binary):
    def c_code(self, node, name, inputs, outputs, sub):
        return f'{outputs[0]} = {inputs[0]} + {inputs[1]}; PyErr_SetString(PyExc_RuntimeError, "failing here"); {sub["fail"]}'

    def impl(self, x, y):
        return x + y


class PyOnly(Binary):
    """No C code: perform only."""

    c_code = None

    def impl(self, x, y):
        return x - y


add, mul, div, bad_sub, add_fail, py_only = Add(), Mul(), Div(), BadSub(), AddFail(), PyOnly()


def inputs():
    return double("x"), double("y"), double("z")


class MyExc(Exception):
    pass


def my_checker(x, y):
    """Theano's test checker: cells are one-item lists."""
    if x[0] != y[0]:
        raise MyExc("Output mismatch.", {"performlinker": x[0], "clinker": y[0]})


def test_clinker_runs_the_whole_graph_as_c():
    x, y, z = inputs()
    e = add(mul(add(x, y), div(x, y)), bad_sub(bad_sub(x, y), z))
    fn = CLinker().accept(FunctionGraph([x, y, z], [e])).make_function()
    assert fn(2.0, 2.0, 2.0) == 2.0  # bad_sub's C (x - y), never its perform (-10)
    assert fn(3.0, 1.0, 0.5) == (3 + 1) * 3 + (3 - 1 - 0.5)


def test_clinker_code_gen_and_cmodule_key():
    x, y, _ = inputs()
    graph = FunctionGraph([x, y], [bad_sub(x, Constant(tdouble, 4.12345678))])
    linker = CLinker().accept(graph)
    assert abs(linker.make_function()(2.0, 0.0) + 2.12345678) < 1e-12
    code = linker.code_gen()
    assert "PyFloat_AsDouble" in code and "PyInit_" in code  # the type's C and the module's entry
    same = FunctionGraph([x, y], [bad_sub(x, Constant(tdouble, 4.12345678))])
    other = FunctionGraph([x, y], [mul(x, Constant(tdouble, 4.12345678))])
    assert CLinker().accept(same).cmodule_key() == linker.cmodule_key() != CLinker().accept(other).cmodule_key()


def test_clinker_duplicate_unused_and_repeated_inputs():
    x, y, z = inputs()
    assert CLinker().accept(FunctionGraph([x, x], [add(x, x)])).make_function()(2.0, 2.0) == 4.0
    assert CLinker().accept(FunctionGraph([x, y, z], [add(x, y)])).make_function()(2.0, 1.5, 1.0) == 3.5
    assert CLinker().accept(FunctionGraph([x, y, z], [add(mul(y, y), add(x, z))])).make_function()(1.0, 2.0, 3.0) == 8.0


def test_make_thunk_gives_containers_and_a_cthunk():
    x, y, _ = inputs()
    thunk, ins, outs = CLinker().accept(FunctionGraph([x, y], [add(x, y)])).make_thunk()
    ins[0].data, ins[1].data = 1, 2.5  # the container filters through the type: 1 -> 1.0
    assert isinstance(ins[0].data, float)
    thunk()
    assert outs[0].data == 3.5 and outs[0].value == 3.5
    assert str(thunk).startswith("_CThunk") and "module" in str(thunk) and thunk.module is not None
    with pytest.raises(Exception, match="Cannot set readonly storage"):
        outs[0].data = 1.0
    cells = [[None], [None]]
    thunk, ins, _ = CLinker().accept(FunctionGraph([x, y], [add(x, y)])).make_thunk(input_storage=cells)
    assert ins[0].storage is cells[0]


def test_clinker_refuses_a_node_without_c():
    x, y, _ = inputs()
    graph = FunctionGraph([x, y], [add(py_only(x, y), y)])
    with pytest.raises(NotImplementedError, match=r"CLinker runs C code only, and PyOnly.* has none.*\n"
                                                  r"Hint: use OpWiseCLinker\(\)"):
        CLinker().accept(graph).make_function()
    assert OpWiseCLinker().accept(graph).make_function()(5.0, 2.0) == 5.0  # perform where no C
    with pytest.raises(NotImplementedError, match=r"OpWiseCLinker\(fallback_on_perform=False\) runs C code only"):
        OpWiseCLinker(fallback_on_perform=False).accept(graph).make_function()


def test_opwise_and_perform_linkers():
    x, y, z = inputs()
    e = add(mul(add(x, y), div(x, y)), bad_sub(bad_sub(x, y), z))
    graph = FunctionGraph([x, y, z], [e])
    assert OpWiseCLinker().accept(graph).make_function()(2.0, 2.0, 2.0) == 2.0
    assert PerformLinker().accept(graph).make_function()(2.0, 2.0, 2.0) == 4.0 + -10.0
    graph = FunctionGraph([y, z], [add(mul(Constant(tdouble, 7.2, name="x"), y), mul(y, z))])
    assert OpWiseCLinker().accept(graph).make_function()(1.5, 3.0) == pytest.approx(15.3)


def test_c_failure_raises_the_c_error():
    _, y, z = inputs()
    fn = OpWiseCLinker().accept(FunctionGraph([y, z], [add_fail(mul(Constant(tdouble, 7.2), y), y)])).make_function()
    with pytest.raises(RuntimeError, match="failing here"):
        fn(1.5, 3.0)


def test_duallinker_agrees_where_perform_and_c_agree():
    x, y, z = inputs()
    fn = DualLinker(checker=my_checker).accept(FunctionGraph([x, y, z], [add(mul(x, y), mul(y, z))])).make_function()
    assert fn(7.2, 1.5, 3.0) == pytest.approx(15.3)


def test_duallinker_reports_the_node_whose_perform_and_c_differ():
    x, y, z = inputs()
    graph = FunctionGraph([x, y, z], [bad_sub(mul(x, y), mul(y, z))])
    assert CLinker().accept(graph).make_function()(1.0, 2.0, 3.0) == -4.0
    assert OpWiseCLinker().accept(graph).make_function()(1.0, 2.0, 3.0) == -4.0
    assert PerformLinker().accept(graph).make_function()(1.0, 2.0, 3.0) == -10.0
    fn = DualLinker(checker=my_checker).accept(graph).make_function()
    with pytest.raises(MyExc) as info:
        fn(1.0, 2.0, 3.0)
    assert info.value.args[1] == {"performlinker": -10.0, "clinker": -4.0}
    assert any("BadSub" in note for note in info.value.__notes__)
    with pytest.raises(OutputMismatch, match="Output mismatch") as info:  # the default checker
        DualLinker().accept(graph).make_function()(1.0, 2.0, 3.0)
    assert (info.value.perform_value, info.value.c_value) == (-10.0, -4.0)
    assert info.value.args == ("Output mismatch.", {"performlinker": -10.0, "clinker": -4.0})


def test_accept_ties_one_graph_and_calls_are_checked():
    x, y, _ = inputs()
    first, second = FunctionGraph([x, y], [add(x, y)]), FunctionGraph([x, y], [mul(x, y)])
    linker = CLinker()
    assert linker.accept(first) is linker and linker.accept(first) is linker
    other = linker.accept(second)
    assert other is not linker and other.fgraph is second and linker.fgraph is first
    assert other.make_function()(2.0, 3.0) == 6.0 and linker.make_function()(2.0, 3.0) == 5.0
    with pytest.raises(TypeError, match=r"Function call takes exactly 2 arguments \(1 given\)"):
        linker.make_function()(2.0)
    with pytest.raises(ValueError, match=r"CLinker has no graph: call accept\(fgraph\) first"):
        CLinker().make_function()
    assert linker.make_function(unpack_single=False)(2.0, 3.0) == [5.0]


def test_schedule_orders_the_per_node_linkers():
    x, y, _ = inputs()
    a, b = add(x, y), mul(x, y)
    graph = FunctionGraph([x, y], [add(a, b)])
    seen = []

    def schedule(fgraph):
        order = fgraph.toposort()
        order = sorted(order[:-1], key=lambda node: type(node.op).__name__ != "Mul") + order[-1:]
        seen.append([type(node.op).__name__ for node in order])
        return order

    _, _, _, thunks, order = PerformLinker(schedule=schedule).accept(graph).make_all()
    assert seen == [["Mul", "Add", "Add"]] and [t.node for t in thunks] == order


def test_wraplinker_runs_linkers_in_lockstep():
    x, y, z = inputs()
    graph = FunctionGraph([x, y, z], [add(mul(x, y), z)])
    calls = []

    def wrapper(i, node, perform_thunk, c_thunk):
        perform_thunk()
        c_thunk()
        calls.append((i, type(node.op).__name__, perform_thunk.outputs[0][0], c_thunk.outputs[0][0]))

    fn = link.WrapLinker([PerformLinker(), OpWiseCLinker()], wrapper).accept(graph).make_function()
    assert fn(2.0, 3.0, 4.0) == 10.0
    assert calls == [(0, "Mul", 6.0, 6.0), (1, "Add", 10.0, 10.0)]
    many = link.WrapLinkerMany([PerformLinker()], [lambda i, node, th: th(), lambda i, node, th: calls.append(i)])
    assert many.accept(graph).make_function()(1.0, 1.0, 1.0) == 2.0 and calls[-2:] == [0, 1]


class Scale(Op):
    """A user op on float64 vectors whose C computes x * k and whose perform is right unless `wrong`."""

    __props__ = ("k", "wrong")

    def __init__(self, k, wrong=False):
        self.k, self.wrong = k, wrong

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x * (self.k + (1e-3 if self.wrong else 0.0))

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (y,) = inputs, outputs
        return f"""
        Py_XDECREF({y});
        {y} = (PyArrayObject*)PyArray_NewLikeArray({x}, NPY_CORDER, NULL, 0);
        if (!{y}) {sub['fail']}
        {{
            npy_intp n = PyArray_SIZE({x});
            double* out = (double*)PyArray_DATA({y});
            for (npy_intp i = 0; i < n; ++i)
                out[i] = *(double*)PyArray_GETPTR1({x}, i) * {self.k!r};
        }}"""

    def c_code_cache_version(self):
        return (1,)


@pytest.fixture(scope="module")
def tensor_graph():
    """Scale(2)(exp(x)) * y: opkit's C ops and a user C op, with numpy's answer."""
    x, y = ot.dvector("x"), ot.dvector("y")
    out = Scale(2.0)(ot.exp(x)) * y

    def expected(a, b):
        return 2.0 * np.exp(a) * b

    return FunctionGraph([x, y], [out]), expected


@pytest.mark.parametrize("linker", [CLinker, OpWiseCLinker, PerformLinker, DualLinker])
def test_each_linker_computes_tensor_ops_as_numpy_does(linker, tensor_graph):
    graph, expected = tensor_graph
    fn = linker().accept(graph).make_function()
    rng = np.random.default_rng(0)
    for size in (0, 1, 7):
        a, b = rng.normal(size=size), rng.normal(size=size)
        np.testing.assert_allclose(fn(a, b), expected(a, b), rtol=1e-12)


def test_duallinker_default_checker_catches_a_wrong_perform_on_arrays():
    x = ot.dvector("x")
    graph = FunctionGraph([x], [ot.exp(Scale(3.0, wrong=True)(x))])
    with pytest.raises(OutputMismatch) as info:
        DualLinker().accept(graph).make_function()(np.arange(3.0))
    np.testing.assert_allclose(info.value.c_value, np.arange(3.0) * 3.0)
    assert any("Scale" in note for note in info.value.__notes__)
    assert info.value.variable.owner.op == Scale(3.0, wrong=True)
    right = FunctionGraph([x], [ot.exp(Scale(3.0)(x))])
    np.testing.assert_allclose(DualLinker().accept(right).make_function()(np.arange(3.0)), np.exp(np.arange(3.0) * 3))


@pytest.mark.parametrize("linker", [CLinker, OpWiseCLinker, PerformLinker])
def test_the_linkers_serve_as_a_modes_linker(linker):
    x = ot.dvector("x")
    fn = opkit.function([x], Scale(2.0)(x) + 1, mode=opkit.Mode(linker=linker()))
    np.testing.assert_allclose(fn(np.arange(4.0)), np.arange(4.0) * 2 + 1)


def test_duallinker_in_a_mode_checks_every_call():
    x = ot.dvector("x")
    right = opkit.function([x], Scale(2.0)(x), mode=opkit.Mode(linker=DualLinker()))
    np.testing.assert_allclose(right(np.arange(4.0)), np.arange(4.0) * 2)
    def close(perform_cell, c_cell):
        np.testing.assert_allclose(perform_cell[0], c_cell[0], rtol=1e-9)

    mode = opkit.Mode(linker=DualLinker(checker=close), optimizer=None)
    wrong = opkit.function([x], Scale(2.0, wrong=True)(x), mode=mode)
    np.testing.assert_allclose(wrong(np.zeros(3)), 0.0)  # equal where x is 0
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        wrong(np.arange(4.0))


def test_the_linkers_at_pytensors_paths():
    from opkit.compat.pytensor.link import basic
    from opkit.compat.pytensor.link.c import basic as c_basic

    assert c_basic.CLinker is CLinker and c_basic.OpWiseCLinker is OpWiseCLinker and c_basic.DualLinker is DualLinker
    assert basic.PerformLinker is PerformLinker and basic.Linker is link.Linker
    x, y, z = inputs()
    graph = FunctionGraph([x, y, z], [add(mul(x, y), z)])
    calls = []
    fn = basic.WrapLinker([PerformLinker()], lambda fgraph, i, node, th: (calls.append(fgraph), th())).accept(graph)
    assert fn.make_function()(2.0, 3.0, 4.0) == 10.0 and calls == [graph, graph]

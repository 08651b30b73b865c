"""User scalar ops (opkit.scalar.ScalarOp and friends) wrapped in Elemwise: real ops ported by changing imports.

tests/helpers/pytensor_scalar_math.py holds PyTensor's Erf, Erfinv, Sigmoid, Softplus and Log1mexp and
tests/helpers/theano_xlogx.py Theano's XlogX and XlogY0, copied with their import lines changed only.
They are compared with scipy and numpy on float32 and float64, in C (FAST_RUN) and through impl
(FAST_COMPILE), fused with opkit's own elementwise ops, and differentiated with verify_grad.
"""

import functools

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from helpers import pytensor_scalar_math as ptm
from helpers import theano_xlogx as txl
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.scalar as ps
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.testing import RopLopChecker, verify_grad
from opkit.tensor import Elemwise

MODES = ("FAST_RUN", "FAST_COMPILE")
RTOL = {"float32": 2e-6, "float64": 1e-14}


def _nodes(f):
    return f.maker.fgraph.toposort()


def _log1mexp(x):
    x = x.astype(np.float64)
    return np.where(x < np.log(0.5), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


# (ported op, reference on float64 values, points where it is defined)
PORTED = {
    "sigmoid": (ptm.sigmoid, scipy.special.expit, np.linspace(-30, 30, 41)),
    "softplus": (ptm.softplus, lambda x: np.logaddexp(0.0, x), np.linspace(-50, 50, 41)),
    "log1mexp": (ptm.log1mexp, _log1mexp, -np.geomspace(1e-4, 40, 41)),
    "erf": (ptm.erf, scipy.special.erf, np.linspace(-4, 4, 41)),
    "erfinv": (ptm.erfinv, scipy.special.erfinv, np.linspace(-0.999, 0.999, 41)),
    "xlogx": (txl.scalar_xlogx, lambda x: np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, x))),
              np.concatenate([[0.0], np.geomspace(1e-6, 1e6, 40)])),
}


def _ported_graph(name, dtype):
    """(x, [the op alone, the op fused with opkit's ops]) of the ported op `name` on a vector x of its own."""
    x = ot.tensor(dtype, (None,), name=f"x_{name}")
    op = Elemwise(PORTED[name][0], name=name)
    return x, [op(x), op(ot.exp(ot.log(x) * 1) if name in ("xlogx",) else x * 1) + ot.sqr(x)]


@functools.cache
def _ported_function(dtype, mode):
    """Every ported op's graph (_ported_graph) as outputs of one function per dtype and mode (one module, not one
    per op: CI time): f(one value array per name of sorted(PORTED)) -> [alone, fused] per name."""
    graphs = [_ported_graph(name, dtype) for name in sorted(PORTED)]
    return opkit.function([x for x, _ in graphs], [out for _, outs in graphs for out in outs], mode=mode)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(PORTED))
def test_ported_ops_match_scipy_alone_and_fused_with_opkit_ops(name, dtype):
    _, reference, points = PORTED[name]
    values = points.astype(dtype)
    expected = reference(values.astype(np.float64))
    k = sorted(PORTED).index(name)
    for mode in MODES:
        got_alone, got_fused = _ported_function(dtype, mode)(
            *[PORTED[other][2].astype(dtype) for other in sorted(PORTED)])[2 * k:2 * k + 2]
        assert got_alone.dtype == got_fused.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got_alone, expected.astype(dtype), rtol=RTOL[dtype] * 8, atol=0,
                                   err_msg=f"{name} {mode}")
        np.testing.assert_allclose(got_fused, (expected + values.astype(np.float64) ** 2).astype(dtype),
                                   rtol=RTOL[dtype] * 16, atol=1e-30, err_msg=f"{name} fused {mode}")
        if mode == "FAST_RUN" and name != "erfinv":  # erfinv has no C (PyTensor's raises NotImplementedError)
            x, outputs = _ported_graph(name, dtype)  # the op's own graph as FAST_RUN compiles it in the function above
            nodes = _nodes(opkit.function([x], outputs, mode=FAST_RUN_GRAPH))
            assert all(op_has_c(n) for n in nodes), [str(n.op) for n in nodes]
            assert any(str(n.op).startswith("Fused") and name in str(n.op).lower() or name == "xlogx" for n in nodes)


def test_user_ops_and_builtin_ops_share_one_c_loop():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = Elemwise(ptm.softplus)(ot.exp(x) - y) * Elemwise(ptm.sigmoid)(y) + Elemwise(ptm.log1mexp)(-ot.abs(x) - 1)
    f = opkit.function([x, y], out)
    (node,) = _nodes(f)
    assert str(node.op).startswith("Fused") and op_has_c(node)
    assert {"Softplus", "sigmoid", "Log1mexp", "exp", "abs"} <= set(str(node.op)[6:-1].split(","))
    a, b = np.linspace(-3, 2, 9), np.linspace(1, -2, 9)
    expected = (np.logaddexp(0, np.exp(a) - b) * scipy.special.expit(b)
                + np.log(-np.expm1(-np.abs(a) - 1)))
    np.testing.assert_allclose(f(a, b), expected, rtol=1e-14)
    np.testing.assert_allclose(opkit.function([x, y], out, mode="FAST_COMPILE")(a, b), expected, rtol=1e-14)


@pytest.mark.parametrize("layout", ["strided", "reversed", "fortran", "empty", "broadcast"])
def test_layouts_and_broadcasting(layout):
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = opkit.function([x, y], txl.xlogy0(x, ot.exp(y)) + Elemwise(ptm.sigmoid)(x))
    base = np.linspace(-2, 3, 60).reshape(6, 10)
    a, b = {"strided": (base[::2, ::3], base[1::2, ::3]), "reversed": (base[::-1, ::-1], base),
            "fortran": (np.asfortranarray(base), base.T.copy().T), "empty": (base[:0], base[:0]),
            "broadcast": (base, base[:1])}[layout]
    expected = np.where(a == 0, 0.0, a * b) + scipy.special.expit(a)
    np.testing.assert_allclose(f(a, b), expected, rtol=1e-14)


SCALAR_GRADS = {  # name: f(a, b, row), each of a's shape; row has one row (broadcast)
    "sigmoid": lambda a, b, row: Elemwise(ptm.sigmoid)(ot.exp(a) * 0.5),
    "softplus": lambda a, b, row: Elemwise(ptm.softplus)(a),
    "log1mexp": lambda a, b, row: Elemwise(ptm.log1mexp)(-ot.abs(a) - 0.1),
    "erf": lambda a, b, row: Elemwise(ptm.erf)(a),
    "erfinv": lambda a, b, row: Elemwise(ptm.erfinv)(ot.tanh(a) * 0.9),
    "xlogx": lambda a, b, row: txl.xlogx(ot.abs(a) + 0.1),
    "xlogy0": lambda a, b, row: txl.xlogy0(a, ot.abs(b) + 0.1),
    "xlogy0 of a broadcast row": lambda a, b, row: txl.xlogy0(a, ot.abs(row) + 0.1),
}


def _grad_point():
    v = np.array([[-2.0, -0.5, 0.3], [1.2, 2.5, -1.7]])
    return [v, v[::-1].copy(), v[:1].copy()]


# Every function's gradient in one verify_grad (FAST_RUN: three modules, not three per function); the functions one
# by one in FAST_COMPILE (perform: nothing compiled). Compiled (FAST_RUN), both are soak (`-m soak`): the gradients
# are built of opkit's own elementwise ops, whose C the default run compiles (tests/tensor/test_language_elementwise.py),
# and a user op's gradient run in C stays in the default run in test_multi_line_c_with_temporaries_and_support_code_
# twice_in_one_loop (test_ops_whose_c_is_support_code_from_files' and test_apply_specific_support_code_per_step's in
# test_user_op_gradients_in_c, soak).
@pytest.mark.parametrize("mode", [pytest.param("FAST_RUN", marks=pytest.mark.soak), "FAST_COMPILE"])
def test_gradients_come_from_the_scalar_ops_grad(mode):
    verify_grad(lambda a, b, row: ot.stack([f(a, b, row) for f in SCALAR_GRADS.values()]), _grad_point(), mode=mode)


@pytest.mark.parametrize("mode", [pytest.param("FAST_RUN", marks=pytest.mark.soak), "FAST_COMPILE"])
@pytest.mark.parametrize("name", SCALAR_GRADS)
def test_each_gradient_comes_from_the_scalar_ops_grad(name, mode):
    verify_grad(SCALAR_GRADS[name], _grad_point(), mode=mode)


def test_a_gradient_through_a_name_opkit_knows_is_the_ops_own():
    """PyTensor's Sigmoid is named "sigmoid", as opkit's built-in: its grad is its own, not a table's."""

    class Double(ps.UnaryScalarOp):
        def impl(self, x):
            return 2 * x

        def c_code(self, node, name, inp, out, sub):
            return f"{out[0]} = 2 * {inp[0]};"

        def grad(self, inputs, grads):
            return [grads[0] * 2]

    x = ot.dvector("x")
    g = opkit.grad(ot.sum(Elemwise(Double(ps.same_out, name="exp"))(x)), x)
    np.testing.assert_array_equal(g.eval({x: np.array([1.0, 5.0])}), [2.0, 2.0])


class LogAddExp(ps.BinaryScalarOp):
    """Written as a user would: support code, a multi-line body declaring temporaries, Theano's grad."""

    def impl(self, x, y):
        return np.logaddexp(x, y)

    def c_support_code(self, **kwargs):
        return """
        template <typename T> static inline T user_log1pexp_neg(T d) { return log1p(exp(-d)); }
        """

    def c_code(self, node, name, inp, out, sub):
        x, y = inp
        (z,) = out
        ctype = node.outputs[0].type.dtype_specs()[1]
        return f"""
        {ctype} hi = {x} > {y} ? {x} : {y};
        {ctype} lo = {x} > {y} ? {y} : {x};
        if (hi == lo) {{
            {z} = hi + ({ctype})0.6931471805599453;
        }} else {{
            {z} = hi + user_log1pexp_neg(hi - lo);
        }}
        """

    def grad(self, inputs, grads):
        x, y = inputs
        (gz,) = grads
        return [gz * ps.sigmoid(x - y), gz * ps.sigmoid(y - x)]


logaddexp = LogAddExp(ps.upgrade_to_float, name="logaddexp")


def test_multi_line_c_with_temporaries_and_support_code_twice_in_one_loop():
    x, y = ot.dvector("x"), ot.dvector("y")
    op = Elemwise(logaddexp)
    out = op(op(x, y), ot.exp(y)) * 2 + op(y, x)  # three steps declare `hi` and `lo`, one support function
    f = opkit.function([x, y], [out, op(x, 3.0)])
    assert all(op_has_c(n) for n in _nodes(f))
    assert any(str(n.op).count("logaddexp") == 3 for n in _nodes(f))
    a, b = np.array([-1.0, 0.0, 2.0, 700.0, -np.inf]), np.array([3.0, 0.0, -1.0, 700.0, -np.inf])
    with np.errstate(all="ignore"):
        expected = np.logaddexp(np.logaddexp(a, b), np.exp(b)) * 2 + np.logaddexp(b, a)
    got, with_three = f(a, b)
    np.testing.assert_allclose(got[:4], expected[:4], rtol=1e-15)
    np.testing.assert_allclose(with_three, np.logaddexp(a, 3.0), rtol=1e-15)
    verify_grad(op, [np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.3, -2.0])], mode="FAST_RUN")


@pytest.mark.parametrize("dtype, expected", [("int8", "float32"), ("uint16", "float32"), ("int32", "float64"),
                                             ("bool", "float32"), ("float32", "float32"), ("float64", "float64")])
def test_upgrade_to_float_gives_theanos_dtypes_and_integer_inputs_run_in_c(dtype, expected):
    x = ot.tensor(dtype, (None,), name="x")
    out = Elemwise(logaddexp)(x, x)
    assert out.dtype == expected
    f = opkit.function([x], out)
    values = np.array([0, 1, 1, 0], dtype) if dtype == "bool" else np.array([0, 1, 7, 100], dtype)
    expected_values = np.logaddexp(values.astype(np.float64), values.astype(np.float64)).astype(expected)
    np.testing.assert_allclose(f(values), expected_values, rtol=RTOL[expected] * 4)
    assert all(op_has_c(n) for n in _nodes(f))


class Pick(ps.BinaryScalarOp):
    """transfer_type(1): the output has the second input's type."""

    def impl(self, x, y):
        return x

    def c_code(self, node, name, inp, out, sub):
        return f"{out[0]} = {inp[0]};"


def test_output_types_preferences():
    i8, f64 = ot.tensor("int8", (None,)), ot.dvector()
    assert Elemwise(Pick(ps.transfer_type(1)))(f64, i8).dtype == "int8"
    assert Elemwise(Pick(ps.transfer_type(0)))(f64, i8).dtype == "float64"
    assert Elemwise(Pick(ps.upcast_out))(i8, ot.tensor("uint8", (None,))).dtype == "int16"
    assert Elemwise(Pick(ps.upcast_out_min8))(ot.tensor("bool", (None,)), ot.tensor("bool", (None,))).dtype == "int8"
    assert Elemwise(Pick(ps.specific_out(ps.float32)))(i8, i8).dtype == "float32"
    assert Elemwise(Pick(ps.upgrade_to_float64))(i8, i8).dtype == "float64"
    with pytest.raises(TypeError, match="bool output not supported"):
        Elemwise(Pick(ps.upcast_out_nobool))(ot.tensor("bool", (None,)), ot.tensor("bool", (None,)))
    with pytest.raises(TypeError, match="erfinv is not defined for inputs of dtype complex128.*complex argument"):
        Elemwise(ptm.erfinv)(ot.tensor("complex128", (None,)))
    with pytest.raises(NotImplementedError, match="Cannot calculate the output types for Pick"):
        Elemwise(Pick())(f64, f64)
    with pytest.raises(TypeError, match="Expected a callable"):
        Pick("upcast_out")


def test_scalar_types_and_the_scalar_graph():
    assert ps.float64.dtype_specs() == (np.float64, "npy_float64", "Float64")
    assert ps.int8.dtype_specs()[1:] == ("npy_int8", "Int8")
    assert ps.float32 in ps.float_types and ps.int8 in ps.discrete_types and ps.float64 not in ps.discrete_types
    a, b = ps.int8(), ps.float32()
    z = logaddexp(a, b)  # on scalar variables: a scalar Apply node, as in Theano
    assert z.type == ps.float32 and z.owner.op is logaddexp
    with pytest.raises(TypeError, match="Wrong number of inputs"):
        logaddexp.make_node(a)
    assert ptm.softplus(ot.dvector()).owner.op == Elemwise(ptm.softplus)  # on tensors: Elemwise
    assert str(Elemwise(ptm.softplus)) == "Softplus" and str(txl.xlogx) == "xlogx"
    from opkit.tensor.elemwise import Elemwise as pytensor_home

    assert pytensor_home is Elemwise


def test_weak_python_numbers_and_constants():
    x = ot.fvector("x")
    out = txl.xlogy0(x, 2.0)
    assert out.dtype == "float32"
    values = np.array([0.0, 1.5, -2.0], np.float32)
    np.testing.assert_allclose(opkit.function([x], out)(values), values * np.log(np.float32(2.0)), rtol=1e-6)


class NoC(ps.UnaryScalarOp):
    def impl(self, x):
        return x + 1


class Fails(ps.UnaryScalarOp):
    """Its C raises on NaN: a loop element cannot raise, so it runs impl instead."""

    def impl(self, x):
        if x != x:
            raise ValueError("Fails: NaN input")
        return x * 3

    def c_code(self, node, name, inp, out, sub):
        return f"if ({inp[0]} != {inp[0]}) {{ PyErr_SetString(PyExc_ValueError, \"NaN\"); {sub['fail']} }}\n" \
               f"{out[0]} = {inp[0]} * 3;"


def test_ops_without_usable_c_run_impl():
    x = ot.dvector("x")
    for op, expected in ((NoC(ps.same_out), [2.0, 3.0]), (Fails(ps.same_out), [3.0, 6.0])):
        f = opkit.function([x], Elemwise(op)(ot.exp(x) * 0 + x))
        np.testing.assert_array_equal(f(np.array([1.0, 2.0])), expected)
        assert any(not op_has_c(n) for n in _nodes(f))
    with pytest.raises(ValueError, match="Fails: NaN input"):
        opkit.function([x], Elemwise(Fails(ps.same_out))(x))(np.array([np.nan]))


def test_an_op_without_a_gradient_says_so():
    x = ot.dvector("x")
    with pytest.raises(Exception, match="NoC defines no grad, L_op or pullback"):
        opkit.grad(ot.sum(Elemwise(NoC(ps.same_out))(x)), x)


def test_equal_ops_merge_and_pickle():
    import pickle

    assert ptm.Sigmoid(ps.upgrade_to_float) == ptm.sigmoid and hash(ptm.Sigmoid(ps.upgrade_to_float)) == hash(
        ptm.sigmoid)
    assert ptm.Sigmoid(ps.same_out) != ptm.sigmoid and ptm.Softplus(ps.upgrade_to_float) != ptm.sigmoid
    assert pickle.loads(pickle.dumps(Elemwise(ptm.sigmoid))) == Elemwise(ptm.sigmoid)
    x = ot.dvector("x")
    f = opkit.function([x], [Elemwise(ptm.sigmoid)(x), Elemwise(ptm.Sigmoid(ps.upgrade_to_float))(x)],
                       mode=FAST_RUN_GRAPH)  # FAST_RUN's graph: nothing runs here
    assert [str(n.op) for n in _nodes(f)].count("sigmoid") == 1  # merged


def test_a_multi_line_expression_step_is_one_step():
    """The loop named its result after the number of lines (t<lines - 1>), undeclared for a multi-line step."""
    from opkit.core.tensor.scalars.scalar_ops import ScalarOp as BuiltinStyle

    twice = BuiltinStyle("twice", 1, lambda a: a * 2, c_expr="{0}\n    * 2", c_kinds="f")
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(Elemwise(twice)(x)) + 1)
    assert all(op_has_c(n) for n in _nodes(f))
    np.testing.assert_allclose(f(np.array([0.0, 1.0])), np.exp([0.0, 2.0]) + 1)


# float32 is soak: the same support code and C, on float (its verify_grad is float64's again).
@pytest.mark.parametrize("dtype", [pytest.param("float32", marks=pytest.mark.soak), "float64"])
def test_ops_whose_c_is_support_code_from_files(dtype):
    """PyTensor's GammaInc reads c_code/gamma.c as its c_support_code; Psi and GammaLn bring their own C."""
    x, k = ot.tensor(dtype, (None,), name="x"), ot.tensor(dtype, (None,), name="k")
    outputs = [Elemwise(ptm.gammaln)(x) + ot.exp(x), Elemwise(ptm.psi)(x * 2), Elemwise(ptm.gammainc)(k, ot.sqr(x))]
    v, kv = np.linspace(0.1, 7, 9).astype(dtype), np.linspace(0.5, 4, 9).astype(dtype)
    wide, kwide = v.astype(np.float64), kv.astype(np.float64)
    expected = [scipy.special.gammaln(wide) + np.exp(wide), scipy.special.psi(2 * wide),
                scipy.special.gammainc(kwide, wide ** 2)]
    for mode in MODES:
        f = opkit.function([x, k], outputs, mode=mode)
        if mode == "FAST_RUN":
            assert [op_has_c(n) for n in _nodes(f)] == [True] * 3, [str(n.op) for n in _nodes(f)]
        for got, want, rtol in zip(f(v, kv), expected, (1e-14, 1e-9, 1e-14)):  # PyTensor's _psi: 1e-10
            assert got.dtype == np.dtype(dtype)
            np.testing.assert_allclose(got, want.astype(dtype), rtol=max(rtol, RTOL[dtype] * 32))
    # its grad is psi, whose C runs above; the gradient in C: test_user_op_gradients_in_c (soak)
    verify_grad(USER_OP_GRADIENTS["gammaln"][0](), USER_OP_GRADIENTS["gammaln"][1], mode="FAST_COMPILE")


def test_scalar_variables_have_a_dtype():
    z = ps.float32()
    assert z.dtype == "float32" and ps.as_scalar(3).dtype == "int64" and ps.as_scalar(2.5).dtype == "float64"


class TestUserOpsRop(RopLopChecker):
    """R_op of a user scalar op: its gradient with ones for the output's, times the eval points."""

    def test_unary(self):
        self.check_rop_lop(Elemwise(ptm.softplus)(self.x * 2) + Elemwise(ptm.sigmoid)(self.x), self.in_shape)

    def test_binary_with_broadcasting(self):
        self.check_mat_rop_lop(Elemwise(logaddexp)(self.mx, ot.exp(self.mx[0])), self.mat_in_shape)

    def test_no_gradient_no_rop(self):
        with pytest.raises(NotImplementedError, match="NoC has no R_op: its scalar op's gradient is not defined"):
            opkit.Rop(Elemwise(NoC(ps.same_out))(self.x), self.x, self.v)


class Cube(ps.UnaryScalarOp):
    """Its helper is apply-specific support code named after `name`, as c_code calls it (Theano's contract)."""

    def impl(self, x):
        return x * x * x

    def c_support_code_apply(self, node, name):
        ctype = node.outputs[0].type.dtype_specs()[1]
        return f"static inline {ctype} {name}_cube({ctype} v) {{ return v * v * v; }}"

    def c_code(self, node, name, inp, out, sub):
        return f"{out[0]} = {name}_cube({inp[0]});"

    def grad(self, inputs, grads):
        return [grads[0] * 3 * ps.sqr(inputs[0])]


def test_apply_specific_support_code_per_step():
    x, i = ot.dvector("x"), ot.ivector("i")
    cube = Elemwise(Cube(ps.same_out))
    f = opkit.function([x, i], [cube(cube(x) + 1), cube(i)])
    assert all(op_has_c(n) for n in _nodes(f)) and any(str(n.op).count("Cube") == 2 for n in _nodes(f))
    got, got_i = f(np.array([1.0, -2.0]), np.array([3, -4], np.int32))
    np.testing.assert_array_equal(got, (np.array([1.0, -2.0]) ** 3 + 1) ** 3)
    np.testing.assert_array_equal(got_i, np.array([27, -64], np.int32), strict=True)
    # its gradient is built-in ops (3 * sqr(x)), the cube's C runs above; in C: test_user_op_gradients_in_c (soak)
    verify_grad(cube, USER_OP_GRADIENTS["cube"][1], mode="FAST_COMPILE")


def test_float16_runs_impl_and_several_outputs_are_refused():
    h = ot.tensor("float16", (None,), name="h")
    f = opkit.function([h], Elemwise(ptm.sigmoid)(h))
    assert not any(op_has_c(n) for n in _nodes(f))  # numpy's float16 rounding: no C
    np.testing.assert_array_equal(f(np.array([0.0, 2.0], np.float16)),
                                  scipy.special.expit(np.array([0.0, 2.0], np.float16)).astype(np.float16), strict=True)

    class Two(ps.UnaryScalarOp):
        nout = 2

    with pytest.raises(TypeError, match="takes scalar ops with one output, this one has 2"):
        Elemwise(Two(ps.specific_out(ps.float64, ps.float64)))(ot.dvector())


@pytest.fixture(scope="module")
def logaddexp_functions():
    x, y = ot.dvector("x"), ot.fvector("y")
    outputs = [Elemwise(logaddexp)(x, ot.exp(x) * 0.5), Elemwise(logaddexp)(y, y * 2)]
    return {mode: opkit.function([x, y], outputs, mode=mode) for mode in MODES}


finite64 = st.floats(-700, 700, allow_nan=False)
finite32 = st.floats(-80, 80, allow_nan=False, width=32)


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(np.float64, st.integers(0, 3000), elements=finite64),
       b=hnp.arrays(np.float32, st.integers(0, 3000), elements=finite32))
def test_c_against_impl_on_random_values_and_long_loops(logaddexp_functions, a, b):
    """C (FAST_RUN, threaded loops when long) against impl (numpy's logaddexp, FAST_COMPILE)."""
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    c_result = logaddexp_functions["FAST_RUN"](a, b)
    impl_result = logaddexp_functions["FAST_COMPILE"](a, b)
    for got, want, dtype in zip(c_result, impl_result, ("float64", "float32")):
        assert got.dtype == want.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, rtol=RTOL[dtype] * 4, atol=0)


def test_nfunc_spec_names_a_numpy_function_or_a_dotted_attribute_path():
    from opkit.core.tensor.scalars.user_scalar import function_from_path

    assert function_from_path("exp") is np.exp and function_from_path("scipy.special.expit") is scipy.special.expit
    assert function_from_path("scipy.stats.chi2.sf") == scipy.stats.chi2.sf
    assert function_from_path("scipy.special.no_such_function") is None and function_from_path("no_module.f") is None

    class Chi2Sf(ps.BinaryScalarOp):
        nfunc_spec = ("scipy.stats.chi2.sf", 2, 1)

        def impl(self, x, k):
            raise AssertionError("perform uses nfunc_spec")

    x, k = ot.dvector("x"), ot.dvector("k")
    got = opkit.function([x, k], Elemwise(Chi2Sf(ps.upgrade_to_float))(x, k), mode="FAST_COMPILE")(
        np.array([0.5, 2.0]), np.array([1.0, 3.0]))
    np.testing.assert_allclose(got, scipy.stats.chi2.sf([0.5, 2.0], [1.0, 3.0]), rtol=1e-15)


# (the op, the point) of the user ops whose verify_grad the default run makes in FAST_COMPILE (above)
USER_OP_GRADIENTS = {"cube": (lambda: Elemwise(Cube(ps.same_out)), [np.array([0.5, -1.5])]),
                     "gammaln": (lambda: Elemwise(ptm.gammaln), [np.array([0.5, 2.0, 3.3])])}


@pytest.mark.soak
@pytest.mark.parametrize("name", sorted(USER_OP_GRADIENTS))
def test_user_op_gradients_in_c(name):
    """verify_grad in FAST_RUN: the gradient graph in C (built-in ops and psi, whose C the default run compiles)."""
    build, point = USER_OP_GRADIENTS[name]
    verify_grad(build(), point, mode="FAST_RUN")

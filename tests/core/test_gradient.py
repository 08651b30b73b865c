"""opkit.grad, Lop and Rop; the gradients of the built-in tensor ops; the integer and disconnection rules."""

import warnings

import numpy as np
import pytest

import opkit
import opkit.gradient
import opkit.tensor as ot
from opkit.core.tensor.shapes.alloc import Alloc, Cast, DimShuffle, alloc, cast, expand_dims, transpose, zeros_like
from opkit.gradient import (DisconnectedInputError, DisconnectedType, NullType, NullTypeGradError,
                            disconnected_type, grad_not_implemented, grad_undefined)
from opkit.testing import InferShapeTester, verify_grad


# Most graphs here run through perform: the C backend is not what these tests are about, and
# compiling every small gradient graph would make the file slow.
PY = opkit.Mode(linker="py", optimizer="fast_run")


def evaluate(outputs, inputs, *values, mode=PY):
    return opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*values)


class DoubleOp(opkit.Op):
    """The tutorial's op: 2 * x, with grad and R_op."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class PickFirst(opkit.Op):
    """x + 0 * y: the gradient for y is undefined (or not implemented)."""

    __props__ = ("implemented",)

    def __init__(self, implemented=False):
        self.implemented = implemented

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return opkit.Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].copy()

    def grad(self, inputs, output_grads):
        make_null = grad_not_implemented if self.implemented else grad_undefined
        return [output_grads[0], make_null(self, 1, inputs[1], "y only picks the branch")]


class NoGrad(opkit.Op):
    """An op that never defined grad."""

    __props__ = ()

    def make_node(self, x):
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].copy()


# -- grad ------------------------------------------------------------------------------------------------------

def test_grad_matches_the_analytic_gradient():
    x, y = ot.dvector("x"), ot.dvector("y")
    gx, gy = opkit.grad(ot.sum(x * y + ot.exp(x)), [x, y])
    xv, yv = np.array([0.5, -1.0, 2.0]), np.array([3.0, 4.0, -5.0])
    for mode in (PY, None):
        got_x, got_y = evaluate([gx, gy], [x, y], xv, yv, mode=mode)
        np.testing.assert_allclose(got_x, yv + np.exp(xv))
        np.testing.assert_allclose(got_y, xv)


def test_grad_returns_the_structure_of_wrt():
    x, y = ot.dscalar("x"), ot.dscalar("y")
    cost = x * y
    assert isinstance(opkit.grad(cost, x), opkit.Variable)
    assert isinstance(opkit.grad(cost, [x, y]), list)
    assert isinstance(opkit.grad(cost, (x, y)), tuple)


def test_grad_of_a_reused_variable_adds_the_terms():
    x = ot.dvector("x")
    g = opkit.grad(ot.sum(x * x + x), x)
    np.testing.assert_allclose(evaluate(g, [x], [1.0, 2.0]), [3.0, 5.0])


def test_grad_flows_through_a_custom_op():
    x, y = ot.dvector("x"), ot.dvector("y")
    gx = opkit.grad(ot.sum(DoubleOp()(x) * y), x)
    np.testing.assert_allclose(evaluate(gx, [x, y], [1.0, 2.0], [3.0, 5.0]), [6.0, 10.0])


def test_grad_with_respect_to_an_intermediate_variable():
    x = ot.dvector("x")
    h = ot.exp(x)
    gh = opkit.grad(ot.sum(h * 3), h)
    np.testing.assert_allclose(evaluate(gh, [x], [0.0, 1.0]), [3.0, 3.0])


def test_second_derivative():
    x, v = ot.dvector("x"), ot.dvector("v")
    g = opkit.grad(ot.sum(x ** 3), x)
    hessian_v = opkit.grad(ot.sum(g * v), x)
    np.testing.assert_allclose(evaluate(hessian_v, [x, v], [1.0, 2.0], [1.0, 10.0]), [6.0, 120.0])


def test_consider_constant_stops_the_gradient():
    x = ot.dvector("x")
    h = x * 2
    g = opkit.grad(ot.sum(x * h), x, consider_constant=[h])
    np.testing.assert_allclose(evaluate(g, [x], [1.0, 3.0]), [2.0, 6.0])


def test_known_grads_without_cost():
    x = ot.dvector("x")
    y = ot.exp(x)
    g = opkit.grad(None, x, known_grads={y: ot.constant(np.array([1.0, 2.0]))})
    np.testing.assert_allclose(evaluate(g, [x], [0.0, 1.0]), [1.0, 2.0 * np.e])


def test_cost_must_be_a_scalar():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match=r"cost must be a scalar \(0-d\).*1 dimensions.*\n.*known_grads"):
        opkit.grad(x * 2, x)
    with pytest.raises(TypeError, match="needs a cost"):
        opkit.grad(None, x)
    with pytest.raises(TypeError, match="not an opkit Variable"):
        opkit.grad(ot.sum(x), [x, 3])


def test_deep_graph_does_not_recurse():
    x = ot.dscalar("x")
    y = x
    for _ in range(1500):
        y = y + x
    assert evaluate(opkit.grad(y, x), [x], 1.0) == 1501.0


def test_float32_gradients_keep_float32():
    x = ot.fvector("x")
    g = opkit.grad(ot.sum(x * 2.5 + ot.exp(x) * np.float64(1.5)), x)
    assert g.dtype == "float32"
    assert evaluate(g, [x], np.zeros(2, "float32")).dtype == np.float32


# -- NullType, grad_undefined, grad_not_implemented ------------------------------------------------------------

def test_grad_undefined_raises_only_when_needed():
    x, y = ot.dvector("x"), ot.dvector("y")
    cost = ot.sum(PickFirst()(x, y))
    np.testing.assert_allclose(evaluate(opkit.grad(cost, x), [x, y], [1.0, 2.0], [3.0, 4.0]), [1.0, 1.0])
    with pytest.raises(NullTypeGradError) as info:
        opkit.grad(cost, [x, y])
    error = info.value
    assert error.variable is y and error.position == 1 and error.input_index == 1
    assert isinstance(error.op, PickFirst)
    assert "input 1 (y) of the PickFirst{implemented=False} op is mathematically undefined" in str(error)
    assert "y only picks the branch" in str(error)


def test_grad_not_implemented_and_null_gradients_return():
    x, y = ot.dvector("x"), ot.dvector("y")
    cost = ot.sum(PickFirst(implemented=True)(x, y) * 2)
    with pytest.raises(NullTypeGradError, match="is not implemented"):
        opkit.grad(cost, y)
    null = opkit.grad(cost, y, null_gradients="return")
    assert isinstance(null.type, NullType) and "not implemented" in null.type.why_null


def test_op_without_grad_fails_only_on_its_path():
    x, z = ot.dvector("x"), ot.dvector("z")
    cost = ot.sum(x * 2) + ot.sum(NoGrad()(z))
    # The gradient graph starts from fill(cost, 1), as PyTensor's: it depends on the cost, hence on z.
    np.testing.assert_allclose(evaluate(opkit.grad(cost, x), [x, z], [1.0], [5.0]), [2.0])
    with pytest.raises(NullTypeGradError, match="NoGrad op is not implemented.*Define grad"):
        opkit.grad(cost, z)


def test_placeholder_types():
    assert isinstance(disconnected_type(), opkit.Variable)
    assert isinstance(disconnected_type().type, DisconnectedType)
    assert NullType("a") == NullType("b")
    with pytest.raises(TypeError, match="NullType variable is a symbolic placeholder"):
        NullType("why").filter(1.0)
    assert opkit.gradient.grad is opkit.grad


def test_op_grad_mistakes_are_reported():
    class Returns(DoubleOp):
        def __init__(self, result):
            self.result = result

        def grad(self, inputs, output_grads):
            return self.result(inputs[0])

    x = ot.dvector("x")
    with pytest.raises(TypeError, match="returned None for input 0"):
        opkit.grad(ot.sum(Returns(lambda x: [None])(x)), x)
    with pytest.raises(ValueError, match="returned 2 gradient terms for 1 inputs"):
        opkit.grad(ot.sum(Returns(lambda x: [x, x])(x)), x)
    with pytest.raises(TypeError, match="illegally returned an integer-valued variable"):
        opkit.grad(ot.sum(Returns(lambda x: [cast(x, "int64")])(x)), x)
    with pytest.raises(ValueError, match="term with 0 dimensions for input 0"):
        opkit.grad(ot.sum(Returns(lambda x: [ot.sum(x)])(x)), x)


# -- integers ---------------------------------------------------------------------------------------------------

def test_integer_inputs_get_float_zero_gradients():
    xi, y = ot.lvector("xi"), ot.dvector("y")
    gi, gy = opkit.grad(ot.sum(xi * y), [xi, y])
    assert gi.dtype == opkit.config.floatX and gy.dtype == "float64"
    got_i, got_y = evaluate([gi, gy], [xi, y], [1, 2], [3.0, 4.0])
    np.testing.assert_array_equal(got_i, [0.0, 0.0])
    np.testing.assert_array_equal(got_y, [1.0, 2.0])


def test_integer_outputs_give_zero_gradients():
    x, y = ot.dvector("x"), ot.dvector("y")
    gx, gy = opkit.grad(ot.sum(cast(x, "int64") * y), [x, y])
    got_x, got_y = evaluate([gx, gy], [x, y], [1.5, 2.5], [3.0, 4.0])
    np.testing.assert_array_equal(got_x, [0.0, 0.0])
    np.testing.assert_array_equal(got_y, [1.0, 2.0])
    xi = ot.lvector("xi")
    g = opkit.grad(ot.sum(xi), xi)
    assert g.dtype == opkit.config.floatX
    np.testing.assert_array_equal(evaluate(g, [xi], [4, 5, 6]), [0.0, 0.0, 0.0])


def test_integer_operand_of_dot_gets_its_real_gradient():
    x, yi = ot.dvector("x"), ot.lvector("yi")
    g = opkit.grad(ot.dot(x, yi), yi)
    assert g.dtype == "float64"
    np.testing.assert_allclose(evaluate(g, [x, yi], [1.5, 2.5], [1, 2]), [1.5, 2.5])


# -- disconnected inputs ----------------------------------------------------------------------------------------

def test_disconnected_input_raises_by_default():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(DisconnectedInputError) as info:
        opkit.grad(ot.sum(x), [x, y])
    assert isinstance(info.value, ValueError) and info.value.variable is y and info.value.position == 1
    message = str(info.value)
    assert "does not depend on wrt[1] (y)" in message
    assert "disconnected_inputs='warn' or 'ignore'" in message


def test_disconnected_input_warn_and_ignore():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.warns(UserWarning, match=r"wrt\[0\] \(y\)"):
        g = opkit.grad(ot.sum(x), y, disconnected_inputs="warn")
    np.testing.assert_array_equal(evaluate(g, [y], [1.0, 2.0]), [0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = opkit.grad(ot.sum(x), y, disconnected_inputs="ignore")
    assert opkit.grad(ot.sum(x), y, disconnected_inputs="ignore", return_disconnected="None") is None
    placeholder = opkit.grad(ot.sum(x), y, disconnected_inputs="ignore", return_disconnected="Disconnected")
    assert isinstance(placeholder.type, DisconnectedType)
    with pytest.raises(ValueError, match="disconnected_inputs must be one of"):
        opkit.grad(ot.sum(x), x, disconnected_inputs="loud")


def test_shape_only_use_is_disconnected():
    x, y = ot.dvector("x"), ot.dvector("y")
    cost = ot.sum(x) + ot.sum(y.shape)
    with pytest.raises(DisconnectedInputError, match=r"\(y\)"):
        opkit.grad(cost, y)


# -- the built-in ops' gradients, with broadcasting -------------------------------------------------------------

BINARY = {"add": ot.add, "sub": ot.sub, "mul": ot.mul, "true_div": ot.true_div, "maximum": ot.maximum,
          "pow": ot.pow}
UNARY = {"neg": ot.neg, "exp": ot.exp, "log": ot.log, "sqr": ot.sqr, "sqrt": ot.sqrt}
SHAPE_PAIRS = [((3, 4), (3, 4)), ((3, 4), (1, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((3, 1), (2, 1, 4)),
               ((), (3, 2)), ((1, 1), (2, 3))]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_elemwise_grad_with_broadcasting(name, shapes):
    rng = np.random.default_rng(42)
    a, b = (rng.uniform(0.5, 2.0, size=s) for s in shapes)
    verify_grad(BINARY[name], [a, b], rng=rng, mode=PY)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_elemwise_grad(name):
    verify_grad(UNARY[name], [np.random.default_rng(0).uniform(0.5, 2.0, size=(3, 4))], mode=PY)


def test_binary_grads_have_the_input_static_shape():
    x, y = ot.tensor("float64", (None, 1)), ot.dmatrix("y")
    gx, gy = opkit.grad(ot.sum(x * y), [x, y])
    assert gx.type.shape == (None, 1) and gy.ndim == 2


def test_maximum_ties_go_to_the_first_input():
    x, y = ot.dvector("x"), ot.dvector("y")
    gx, gy = opkit.grad(ot.sum(ot.maximum(x, y)), [x, y])
    got_x, got_y = evaluate([gx, gy], [x, y], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
    np.testing.assert_array_equal(got_x, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(got_y, [1.0, 0.0, 0.0])


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ((0, 2), False), ((0, 2), True),
                                           (-1, False), ((), False)])
def test_sum_grad(axis, keepdims):
    verify_grad(lambda a: ot.sum(a, axis=axis, keepdims=keepdims), [np.random.default_rng(3).random((2, 3, 4))],
                mode=PY)


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4))], ids=str)
def test_dot_grad(shapes):
    rng = np.random.default_rng(5)
    verify_grad(ot.dot, [rng.random(s) for s in shapes], rng=rng, mode=PY)


# -- Lop and Rop ------------------------------------------------------------------------------------------------

def test_lop_is_a_vector_jacobian_product():
    x, u = ot.dvector("x"), ot.dvector("u")
    matrix = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = ot.dot(ot.constant(matrix), x)
    got = evaluate(opkit.Lop(y, x, u), [x, u], [1.0, 1.0], [1.0, 0.0, 2.0])
    np.testing.assert_allclose(got, [1.0, 0.0, 2.0] @ matrix)


def test_lop_of_outputs_that_depend_on_each_other():
    x, u1, u2 = ot.dvector("x"), ot.dvector("u1"), ot.dvector("u2")
    y1 = x * 2
    y2 = y1 * 3
    got = evaluate(opkit.Lop([y1, y2], x, [u1, u2]), [x, u1, u2], [1.0], [1.0], [10.0])
    np.testing.assert_allclose(got, [2.0 + 60.0])


def test_rop_is_a_jacobian_vector_product():
    x, v = ot.dvector("x"), ot.dvector("v")
    y = ot.exp(x) * ot.sum(x * x)
    rop = opkit.Rop(y, x, v)
    xv, vv = np.array([0.1, 0.2]), np.array([1.0, -2.0])
    s = (xv ** 2).sum()
    jacobian = np.diag(np.exp(xv) * s) + np.outer(np.exp(xv), 2 * xv)
    np.testing.assert_allclose(evaluate(rop, [x, v], xv, vv), jacobian @ vv)


def test_rop_structure_and_broadcasting():
    x, v = ot.dvector("x"), ot.dvector("v")
    m = ot.dmatrix("m")
    ys = opkit.Rop([x + m, ot.sum(x)], x, v)
    assert isinstance(ys, list)
    got = evaluate(ys, [x, v, m], [1.0, 2.0], [3.0, 4.0], np.zeros((2, 2)))
    np.testing.assert_allclose(got[0], [[3.0, 4.0], [3.0, 4.0]])
    assert got[1] == 7.0


def test_rop_disconnected_and_unimplemented():
    x, v, z = ot.dvector("x"), ot.dvector("v"), ot.dvector("z")
    with pytest.raises(ValueError, match=r"f\[0\] \(.*\) does not depend on wrt.*\n.*disconnected_outputs"):
        opkit.Rop(ot.exp(z), x, v)
    zero = opkit.Rop(ot.exp(z), x, v, disconnected_outputs="ignore")
    np.testing.assert_array_equal(evaluate(zero, [z], [1.0, 2.0]), [0.0, 0.0])
    with pytest.raises(NotImplementedError, match="NoGrad does not implement R_op"):
        opkit.Rop(NoGrad()(x), x, v)
    with pytest.raises(ValueError, match="mismatch|dimensions"):
        opkit.Rop(ot.exp(x), x, ot.dmatrix("w"))


# -- the ops gradients are built from ---------------------------------------------------------------------------

class TestGradientOps(InferShapeTester):
    mode = PY

    def test_alloc(self):
        x, n = ot.dvector("x"), ot.lscalar("n")
        self._compile_and_check([x, n], [alloc(x, n, x.shape[0])], [self.rng.rand(4), 3], Alloc)
        verify_grad(lambda a: alloc(a, 3, 4), [self.rng.rand(1, 4)], mode=PY)
        gn = opkit.grad(ot.sum(alloc(x, n, 2)), [x, n], disconnected_inputs="ignore")[1]
        assert gn.dtype == opkit.config.floatX

    def test_cast(self):
        x = ot.dmatrix("x")
        self._compile_and_check([x], [cast(x, "float32")], [self.rng.rand(3, 4)], Cast)
        verify_grad(lambda a: cast(a, "float64") * 2, [self.rng.rand(3, 4).astype("float32")], mode=PY)
        assert cast(x, "float64") is x

    def test_dimshuffle(self):
        x = ot.dtensor3("x")
        self._compile_and_check([x], [DimShuffle([2, "x", 0, 1])(x)], [self.rng.rand(2, 3, 4)], DimShuffle)
        verify_grad(lambda a: DimShuffle([1, "x", 0])(a) * np.arange(1.0, 4.0).reshape(3, 1, 1),
                    [self.rng.rand(2, 3)], mode=PY)
        assert expand_dims(ot.dvector(), [0, 2]).type.shape == (1, None, 1)
        assert transpose(ot.tensor("float64", (2, 5))).type.shape == (5, 2)

    def test_zeros_like(self):
        x = ot.tensor("float64", (None, 3))
        got = evaluate(zeros_like(x, "float32"), [x], np.ones((2, 3)))
        assert got.dtype == np.float32 and got.shape == (2, 3) and not got.any()

"""The tutorials' ops, used through opkit.ops as an installed package."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.plugins.registry import types
from opkit.testing import InferShapeTester, assert_allclose, verify_grad
from opkit_tutorial_ops import Double, DoubleOp, VectorTimesScalar


def test_every_op_is_registered_under_its_name():
    assert isinstance(opkit.ops.vector_times_scalar, VectorTimesScalar)
    assert isinstance(opkit.ops.double_op, DoubleOp)
    assert [str(opkit.ops[f"double_{n}"]) for n in ("add", "sub", "mul", "div")] == ["add", "sub", "mul", "div"]
    assert isinstance(types.double, Double)
    assert opkit.ops.info("double_op")["distribution"] == "opkit-tutorial-ops"


def test_vector_times_scalar_runs_in_c(opkit_rng):
    x, y = ot.fvector("x"), ot.fscalar("y")
    f = opkit.function([x, y], opkit.ops.vector_times_scalar(x, y))
    data = opkit_rng.random(6).astype("float32")
    assert_allclose(data * np.float32(2.5), f(data, np.float32(2.5)))


def test_double_arithmetic_in_one_c_module():
    double = types.double
    x, y, z = double("x"), double("y"), double("z")
    f = opkit.function([x, y, z], opkit.ops.double_mul(opkit.ops.double_add(x, y), z))
    assert f(1.0, 2.0, 3.0) == 9.0
    g = opkit.function([x, y], opkit.ops.double_div(x, y))
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        g(1.0, 0.0)
    assert g(6.0, 3.0) == 2.0


def test_registered_c_code_copies_a_double_output():
    x = types.double("x")
    f = opkit.function([x], x)
    assert f(2.5) == 2.5


class TestDoubleOp(InferShapeTester):
    def setup_method(self, method=None):
        super().setup_method(method)
        self.op_class = DoubleOp
        self.op = DoubleOp()

    def test_basic(self):
        x = ot.matrix()
        f = opkit.function([x], self.op(x))
        inp = np.asarray(np.random.rand(5, 4), dtype=opkit.config.floatX)
        assert_allclose(inp * 2, f(inp))

    def test_infer_shape(self):
        x = ot.matrix()
        self._compile_and_check([x], [self.op(x)], [np.asarray(np.random.rand(5, 4), dtype=opkit.config.floatX)],
                                self.op_class)

    def test_grad(self):
        verify_grad(self.op, [np.random.rand(5, 7, 2)])

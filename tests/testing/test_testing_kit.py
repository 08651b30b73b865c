"""opkit.testing: the tutorial's DoubleOp tests (ported by changing imports only), and the checkers failing.

Reference: shared/reference/004 ("Extending Theano"), "How To Test it".
"""

import io
import unittest
import warnings

import numpy
import numpy as np
import pytest

import opkit
import opkit.tensor
import opkit.testing
from opkit import config
from opkit import testing as utt
from opkit.testing import (GradientError, InferShapeError, InferShapeTester, RepeatedDimensionWarning,
                           RopLop_checker, RopLopChecker, RopLopError, WrongValueError, assert_allclose, verify_grad)


# -- the tutorial's op, as written there ------------------------------------------------------------------------

from helpers.tutorial_ops import DoubleOp  # noqa: E402 (the tutorial's op, ported in tests/docs/)


class test_Double(utt.InferShapeTester):
    def setUp(self):
        super(test_Double, self).setUp()
        self.op_class = DoubleOp
        self.op = DoubleOp()

    def test_basic(self):
        x = opkit.tensor.matrix()
        f = opkit.function([x], self.op(x))
        inp = numpy.asarray(numpy.random.rand(5, 4), dtype=config.floatX)
        out = f(inp)
        # Compare the result computed to the expected value.
        utt.assert_allclose(inp * 2, out)

    def test_infer_shape(self):
        x = opkit.tensor.matrix()
        self._compile_and_check([x],  # theano.function inputs
                                [self.op(x)],  # theano.function outputs
                                # Always use not square matrix!
                                # inputs data
                                [numpy.asarray(numpy.random.rand(5, 4),
                                               dtype=config.floatX)],
                                # Op that should be removed from the graph.
                                self.op_class)

    def test_grad(self):
        opkit.testing.verify_grad(self.op,
                                  [numpy.random.rand(5, 7, 2)])


class test_DoubleRop(RopLop_checker):
    def setUp(self):
        super(test_DoubleRop, self).setUp()

    def test_double_rop(self):
        self.check_rop_lop(DoubleOp()(self.x), self.in_shape)


# -- the same tests written pytest-style ------------------------------------------------------------------------

class TestDoublePytestStyle(InferShapeTester):
    def setup_method(self, method=None):
        super().setup_method(method)
        self.op = DoubleOp()

    def test_infer_shape(self):
        x = opkit.tensor.matrix()
        self._compile_and_check([x], [self.op(x)], [self.rng.rand(5, 4)], DoubleOp)

    def test_grad(self):
        verify_grad(self.op, [self.rng.rand(5, 7, 2)])

    def test_seeded_rng_and_mode(self):
        assert isinstance(self.rng, np.random.RandomState)
        assert self.mode.rewrites()  # FAST_RUN: shape inference runs


class TestDoubleRopPytestStyle(RopLopChecker):
    def test_rop_lop(self):
        self.check_rop_lop(DoubleOp()(self.x), self.in_shape)

    def test_mat_rop_lop(self):
        self.check_mat_rop_lop(DoubleOp()(self.mx).sum(axis=0), (self.mat_in_shape[1],))

    def test_fixture(self):
        assert 5 <= self.in_shape[0] <= 7 and len(self.mat_in_shape) == 2
        assert self.x.ndim == 1 and self.mx.ndim == 2 and self.x.dtype == config.floatX


def test_tutorial_classes_run_under_plain_unittest():
    suite = unittest.TestSuite()
    for case in (test_Double, test_DoubleRop):
        suite.addTests(unittest.TestLoader().loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    assert result.testsRun == 4
    assert result.wasSuccessful(), result.failures + result.errors


def test_tutorial_in_file_runner():
    t = test_DoubleRop("test_double_rop")
    t.setUp()
    t.test_double_rop()


# -- broken variants of DoubleOp make the checkers fail ---------------------------------------------------------

class SwappedShapeOp(DoubleOp):
    def infer_shape(self, node, i0_shapes):
        return [tuple(reversed(i0_shapes[0]))]


class NoShapeOp(DoubleOp):
    infer_shape = None


class MissingTwoGradOp(DoubleOp):
    def grad(self, inputs, output_grads):
        return [output_grads[0]]


class TripleROp(DoubleOp):
    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return eval_points
        return [eval_points[0] * 3]


class TestCheckersFail(InferShapeTester):
    def test_wrong_infer_shape(self):
        x = opkit.tensor.matrix()
        with pytest.raises(InferShapeError, match="wrong for output 0") as info:
            self._compile_and_check([x], [SwappedShapeOp()(x)], [self.rng.rand(5, 4)], SwappedShapeOp)
        assert info.value.inferred == (4, 5) and info.value.expected == (5, 4)
        assert info.value.cls is SwappedShapeOp and info.value.output_index == 0

    def test_missing_infer_shape(self):
        x = opkit.tensor.matrix()
        with pytest.raises(InferShapeError, match="still computed .*\n.*infer_shape"):
            self._compile_and_check([x], [NoShapeOp()(x)], [self.rng.rand(5, 4)], NoShapeOp)
        self._compile_and_check([x], [NoShapeOp()(x)], [self.rng.rand(5, 4)], NoShapeOp, check_topo=False)

    def test_wrong_cls(self):
        x = opkit.tensor.matrix()
        with pytest.raises(InferShapeError, match="do not use SwappedShapeOp"):
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(5, 4)], SwappedShapeOp)

    def test_square_input_warns(self):
        x = opkit.tensor.matrix()
        with pytest.warns(RepeatedDimensionWarning, match=r"shape \(4, 4\).*\n.*warn=False"):
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(4, 4)], DoubleOp)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(4, 4)], DoubleOp, warn=False)
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(4, 5)], DoubleOp)

    def test_broadcastable_dims_do_not_warn(self):
        x = opkit.tensor.tensor("float64", (None, 1, None))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(3, 1, 4)], DoubleOp)

    def test_excluding_shape_rewrite_keeps_the_op(self):
        x = opkit.tensor.matrix()
        with pytest.raises(InferShapeError, match="still computed"):
            self._compile_and_check([x], [DoubleOp()(x)], [self.rng.rand(5, 4)], DoubleOp, excluding=["shape"])

    def test_wrong_grad(self):
        with pytest.raises(GradientError) as info:
            verify_grad(MissingTwoGradOp(), [self.rng.rand(5, 7, 2)])
        error = info.value
        assert error.arg == 0 and error.shape == (5, 7, 2) and 0 <= error.err_pos < 70
        assert error.abs_err > error.abs_tol and error.rel_err > error.rel_tol
        assert error.numeric == pytest.approx(2 * error.analytic, rel=1e-4)
        message = str(error)
        for fact in ("worst element: input 0", "absolute error", "relative error", "symbolic gradient",
                     "numeric gradient"):
            assert fact in message
        assert verify_grad.E_grad is GradientError and issubclass(GradientError, AssertionError)

    def test_wrong_rop(self):
        checker = RopLopChecker()
        checker.setUp()
        with pytest.raises(RopLopError, match="Rop mismatch") as info:
            checker.check_rop_lop(TripleROp()(checker.x), checker.in_shape)
        assert info.value.method == "Rop"
        np.testing.assert_allclose(info.value.value, 1.5 * info.value.expected)

    def test_wrong_grad_fails_rop_lop_check(self):
        checker = RopLopChecker()
        checker.setUp()
        with pytest.raises(RopLopError, match="Lop mismatch"):
            checker.check_rop_lop(MissingTwoGradOp()(checker.x), checker.in_shape)

    def test_wrong_out_shape(self):
        checker = RopLopChecker()
        checker.setUp()
        with pytest.raises(ValueError, match="out_shape"):
            checker.check_rop_lop(DoubleOp()(checker.x), (3,))


class TestNonDiffRop(RopLopChecker):
    def test_nondiff_op_passes(self):
        self.check_nondiff_rop(opkit.testing.break_op(self.x))

    def test_differentiable_op_fails(self):
        with pytest.raises(RopLopError, match="should raise"):
            self.check_nondiff_rop(DoubleOp()(self.x))

    def test_elemwise_ops(self):
        # the checker's functions in FAST_COMPILE (perform): these ops' R_op and grad are graphs, whose C tests/tensor
        # runs; the compiled path of the checker runs in TestDoubleRopPytestStyle
        with opkit.config.change_flags(mode="FAST_COMPILE"):
            self.check_rop_lop(opkit.tensor.exp(self.x) * self.x, self.in_shape)
            weights = np.linspace(1.0, 2.0, self.mat_in_shape[1])
            self.check_mat_rop_lop(opkit.tensor.dot(self.mx * opkit.tensor.sqr(self.mx), weights),
                                   (self.mat_in_shape[0],))


def test_setup_runs_once_under_pytest_and_keeps_subclass_attributes():
    class Custom(RopLopChecker):
        def setup_method(self, method=None):
            super().setup_method(method)
            self.x = opkit.tensor.dvector("mine")

    case = Custom()
    case.setup_method()
    case.setUp()  # what pytest's unittest support calls next
    assert case.x.name == "mine"


# -- verify_grad ----------------------------------------------------------------------------------------------

# The next three check verify_grad itself (its draws, its callable and inputs, float32), on FAST_COMPILE's Python: the
# compiled (FAST_RUN) path of verify_grad runs in the tutorial's test_grad and in TestCheckersFail.test_wrong_grad.

def test_verify_grad_is_deterministic():
    def run():
        try:
            verify_grad(MissingTwoGradOp(), [np.linspace(0.1, 1.0, 6)], mode="FAST_COMPILE")
        except GradientError as exc:
            return exc.err_pos, exc.abs_err
    assert run() == run()


def test_verify_grad_callable_and_several_inputs():
    verify_grad(lambda a, b: opkit.tensor.dot(a, b) * a.sum(), [np.random.rand(3, 4), np.random.rand(4)],
                rng=np.random.default_rng(1), mode="FAST_COMPILE")


def test_verify_grad_float32():
    # float32's tolerances, step and projection dtype are verify_grad's Python: FAST_COMPILE (its compiled path runs
    # in test_grad and test_wrong_grad, float64)
    verify_grad(DoubleOp(), [np.random.rand(3, 2).astype("float32")], cast_to_output_type=True, mode="FAST_COMPILE")
    with pytest.raises(GradientError):
        verify_grad(MissingTwoGradOp(), [np.random.rand(3, 2).astype("float32")], mode="FAST_COMPILE")


def test_verify_grad_tolerances_and_errors():
    verify_grad(MissingTwoGradOp(), [np.random.rand(3)], abs_tol=10.0, rel_tol=10.0)
    with pytest.raises(TypeError, match="input 0 has dtype int64"):
        verify_grad(DoubleOp(), [np.arange(3)])
    with pytest.raises(NotImplementedError, match="one output"):
        verify_grad(lambda a: [a, a], [np.random.rand(3)])


def test_numeric_grad():
    values = opkit.testing.numeric_grad(lambda a, b: float((a ** 2).sum() * b), [np.array([1.0, 2.0]), np.array(3.0)])
    np.testing.assert_allclose(values[0], [6.0, 12.0], rtol=1e-6)
    np.testing.assert_allclose(values[1], 5.0, rtol=1e-6)


@pytest.mark.parametrize("layout", ["C", "Fortran", "negative strides", "strided"])
def test_numeric_grad_of_any_layout(layout):
    """A Fortran-order or strided point is perturbed too (reshape(-1) of it would be a copy)."""
    base = np.arange(1.0, 13.0).reshape(3, 4)
    point = {"C": base, "Fortran": np.asfortranarray(base), "negative strides": base[::-1, ::-1],
             "strided": np.arange(1.0, 25.0).reshape(3, 8)[:, ::2]}[layout]
    weights = np.arange(12.0).reshape(3, 4)
    values = opkit.testing.numeric_grad(lambda a: float((a ** 2 * weights).sum()), [point])
    np.testing.assert_allclose(values[0], 2 * point * weights, rtol=1e-5, atol=1e-5)
    verify_grad(lambda a: (a ** 2 * weights).sum(), [point], rng=np.random.default_rng(0), mode="FAST_COMPILE")


# -- assert_allclose ------------------------------------------------------------------------------------------

def test_assert_allclose_passes_and_fails_with_facts():
    assert_allclose([1.0, 2.0], np.array([1.0, 2.0 + 1e-9]))
    with pytest.raises(WrongValueError) as info:
        assert_allclose(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 4.5]]))
    error = info.value
    assert error.index == (1, 1) and error.abs_err == pytest.approx(0.5) and error.rel_err == pytest.approx(0.125)
    message = str(error)
    assert "max absolute difference: 0.5" in message and "max relative difference: 0.125" in message
    assert "worst element at (1, 1): expected 4.0, got 4.5" in message


def test_assert_allclose_sloppiness_and_dtypes():
    expected = np.array([1.0, 2.0])
    value = expected * (1 + 5e-5)
    with pytest.raises(AssertionError):
        assert_allclose(expected, value)
    assert_allclose(expected, value, cmp_sloppy=1)
    assert_allclose(expected.astype("float32"), (expected * (1 + 5e-6)).astype("float32"))
    with pytest.raises(AssertionError):
        assert_allclose(expected.astype("float32"), (expected * (1 + 5e-4)).astype("float32"), cmp_sloppy=0)
    assert_allclose(expected.astype("float32"), (expected * (1 + 5e-4)).astype("float32"), cmp_sloppy=2)
    assert_allclose(expected, value, rtol=1e-3)
    with pytest.raises(ValueError, match="cmp_sloppy"):
        assert_allclose(expected, value, cmp_sloppy=3)


def test_assert_allclose_shape_mismatch():
    with pytest.raises(WrongValueError, match=r"shapes differ: expected \(2,\), got \(3,\)"):
        assert_allclose([1.0, 2.0], [1.0, 2.0, 3.0])

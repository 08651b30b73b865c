"""PyTensor's CheckAndRaise / Assert (pytensor/raise_op.py), ported by its import lines."""

import numpy as np
import pytest

import opkit
import opkit.scalar as ps
import opkit.tensor as ot
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere, verify_grad_compiled
from ported.pytensor.raise_op import Assert, CheckAndRaise

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 5), (1, 7), (0, 4)])
def test_check_and_raise_passes_values_through_and_raises(dtype, shape):
    x, ok = ot.tensor(dtype, shape=(None, None)), ps.bool("ok")
    y = CheckAndRaise(ValueError, "x is bad")(x * 2, ok)
    value = rng().normal(size=shape).astype(dtype)
    assert_matches(run_everywhere([x, ok], y, [value, True]), [value * 2], dtype)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([x, ok], y, mode=mode)
        with pytest.raises(ValueError, match="x is bad"):
            f(value, False)


# The op's own DebugMode runs in the default run in test_check_and_raise_passes_values_through_and_raises; the
# gradient is checked once, with the FAST_RUN case
@MIXED_GRAPH_MODES
def test_assert_twice_both_dtypes_with_opkit_ops_and_its_gradient(modes):
    x32, x64, ok = ot.fvector("x32"), ot.dvector("x64"), ps.bool("ok")
    a = Assert("first")(ot.exp(x32), ok) + 1
    b = Assert("second")(x64 * x64, ok).sum()
    v32, v64 = rng(1).normal(size=5).astype("float32"), rng(2).normal(size=4)
    assert_matches(run_everywhere([x32, x64, ok], [a, b], [v32, v64, True], modes=modes),
                   [np.exp(v32) + 1, (v64 * v64).sum()])
    if "FAST_RUN" in modes:
        verify_grad_compiled(lambda v: Assert("grad")(v * 3, True), [rng(3).normal(size=3)])


def test_check_and_raise_eager():
    np.testing.assert_array_equal(CheckAndRaise(ValueError, "m").compute(np.arange(3.0), True), np.arange(3.0))


def test_check_and_raise_refuses_a_non_exception():
    with pytest.raises(ValueError, match="must be an Exception subclass"):
        CheckAndRaise(int)


def test_check_and_raise_on_a_scalar_value():
    a, ok = ps.float64("a"), ps.bool("ok")
    y = CheckAndRaise(ValueError, "a is bad")(a, ok)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([a, ok], y, mode=mode)
        assert f(2.5, True) == 2.5
        with pytest.raises(ValueError, match="a is bad"):
            f(2.5, False)


def test_the_message_is_escaped_in_c():
    x, ok = ot.dvector("x"), ps.bool("ok")
    f = opkit.function([x, ok], Assert('say "no"\nnow')(x, ok), mode="FAST_RUN")
    with pytest.raises(AssertionError, match='say "no"\nnow'):
        f(np.ones(2), False)


def test_a_condition_computed_from_tensors():
    x = ot.dvector("x")
    f = opkit.function([x], Assert("sum must be positive")(x, x.sum() > 0))
    np.testing.assert_array_equal(f(np.ones(3)), np.ones(3))

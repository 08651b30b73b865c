"""PyTensor's CheckAndRaise / Assert (pytensor/raise_op.py), ported by its import lines."""

import numpy as np
import pytest

import opkit
import opkit.scalar as ps
import opkit.tensor as ot
from opkit.testing import verify_grad
from ported.checks import assert_matches, rng, run_everywhere
from ported.pytensor.raise_op import Assert, CheckAndRaise

SCALAR_GAP = pytest.mark.xfail(
    strict=True, reason="gap: opkit's scalar variables have no .dtype/.astype and as_scalar does not take a "
    "0-d tensor (PyTensor's ScalarVariable, ScalarFromTensor); with issue 34 item 8's scalar API")


@SCALAR_GAP
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


@SCALAR_GAP
def test_assert_twice_both_dtypes_with_opkit_ops_and_its_gradient():
    x32, x64, ok = ot.fvector("x32"), ot.dvector("x64"), ps.bool("ok")
    a = Assert("first")(ot.exp(x32), ok) + 1
    b = Assert("second")(x64 * x64, ok).sum()
    v32, v64 = rng(1).normal(size=5).astype("float32"), rng(2).normal(size=4)
    assert_matches(run_everywhere([x32, x64, ok], [a, b], [v32, v64, True]),
                   [np.exp(v32) + 1, (v64 * v64).sum()])
    verify_grad(lambda v: Assert("grad")(v * 3, True),
                [rng(3).normal(size=3)])


@SCALAR_GAP
def test_check_and_raise_eager():
    np.testing.assert_array_equal(CheckAndRaise(ValueError, "m").compute(np.arange(3.0), True), np.arange(3.0))


def test_check_and_raise_refuses_a_non_exception():
    with pytest.raises(ValueError, match="must be an Exception subclass"):
        CheckAndRaise(int)

"""PyTensor's Convolve1d (tensor/signal/conv.py), ported by its import lines, against numpy.convolve.

A COp whose C builds a flipped view of the kernel and calls PyArray_Correlate2; a ScalarType bool input.
"""

import numpy as np
import pytest
import scipy.signal

import opkit
import opkit.tensor as ot
from ported.checks import MIXED_GRAPH_MODES, assert_matches, rng, run_everywhere, verify_grad_compiled
from ported.pytensor.conv import Convolve1d, convolve1d

CASES = [(7, 3), (3, 7), (5, 5), (1, 4), (6, 1)]


def reference(a, k, mode):
    """scipy.signal.convolve: 'same' is the size of the first input (numpy's is the longer one's)."""
    return scipy.signal.convolve(a, k, mode=mode, method="direct")


def _graph(n, m, modes):
    inputs, outputs, values, expected = [], [], [], []
    for dtype in ("float32", "float64"):
        a, k = ot.vector(dtype=dtype), ot.vector(dtype=dtype)
        av, kv = rng(1).normal(size=n).astype(dtype), rng(2).normal(size=m).astype(dtype)
        inputs += [a, k]
        values += [av, kv]
        outputs += [convolve1d(a, k, mode=mode) for mode in modes]
        expected += [reference(av, kv, mode) for mode in modes]
    return inputs, outputs, values, expected


@pytest.mark.parametrize("n, m", CASES)
def test_convolve1d_matches_numpy_in_both_dtypes_and_every_mode(n, m):
    inputs, outputs, values, expected = _graph(n, m, ["full", "valid"])
    assert_matches(run_everywhere(inputs, outputs, values), expected)


@pytest.mark.parametrize("n, m", CASES)
def test_convolve1d_same_mode(n, m):
    """'same' pads the first input with zeros (join, zeros) and convolves in 'valid' mode.

    FAST_RUN and FAST_COMPILE: the 'same' graph's DebugMode (a module per node) runs in
    test_convolve1d_same_mode_sliced_in_debugmode, and the op's own in the every-mode test above."""
    inputs, outputs, values, expected = _graph(n, m, ["same"])
    assert_matches(run_everywhere(inputs, outputs, values, modes=("FAST_RUN", "FAST_COMPILE")), expected)


def test_convolve1d_same_mode_sliced_in_debugmode():
    a, k = ot.dvector("a"), ot.dvector("k")
    av, kv = rng(11).normal(size=8), rng(12).normal(size=3)
    y = convolve1d(a, k * k, mode="same")[1:-1].sum()
    assert_matches(run_everywhere([a, k], y, [av, kv], modes=("DebugMode",)), [reference(av, kv * kv, "same")[1:-1].sum()])


def test_an_empty_input_is_refused_as_numpy_does():
    a, k = ot.dvector("a"), ot.dvector("k")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([a, k], convolve1d(a, k), mode=mode)
        with pytest.raises(ValueError, match="cannot be empty"):
            f(np.ones(0), np.ones(3))
        with pytest.raises(ValueError, match="cannot be empty"):
            f(np.ones(3), np.ones(0))


def test_convolve1d_mixed_dtypes_upcast():
    a, k = ot.fvector("a"), ot.dvector("k")
    y = convolve1d(a, k)
    assert y.dtype == "float64"
    av, kv = rng(3).normal(size=5).astype("float32"), rng(4).normal(size=2)
    assert_matches(run_everywhere([a, k], y, [av, kv]), [np.convolve(av.astype("float64"), kv)])


def test_convolve1d_eager_compute():
    av, kv = rng(5).normal(size=6), rng(6).normal(size=3)
    np.testing.assert_allclose(Convolve1d().compute(av, kv, True), np.convolve(av, kv), rtol=1e-12)
    np.testing.assert_allclose(Convolve1d().compute(av, kv, False), np.convolve(av, kv, "valid"), rtol=1e-12)


# The op's own DebugMode runs in the default run in test_convolve1d_matches_numpy_in_both_dtypes_and_every_mode
@MIXED_GRAPH_MODES
def test_convolve1d_twice_with_opkit_ops_and_its_shape(modes):
    a, k = ot.dvector("a"), ot.dvector("k")
    y = convolve1d(ot.exp(a), k, mode="valid") * 2 + convolve1d(a, k * k, mode="same")[1:-1].sum()
    av, kv = rng(7).normal(size=8), rng(8).normal(size=3)
    want = np.convolve(np.exp(av), kv, "valid") * 2 + reference(av, kv * kv, "same")[1:-1].sum()
    assert_matches(run_everywhere([a, k], y, [av, kv], modes=modes), [want])
    f = opkit.function([a, k], convolve1d(a, k).shape)
    np.testing.assert_array_equal(f(np.zeros(7), np.zeros(3)), [9])


def test_convolve1d_shape_is_inferred_without_running_it():
    a, k = ot.dvector("a"), ot.dvector("k")
    with opkit.config.change_flags(on_shape_error="raise"):
        f = opkit.function([a, k], convolve1d(a, k).shape)
    assert not any(isinstance(n.op, Convolve1d) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.zeros(7), np.zeros(3)), [9])
    with opkit.config.change_flags(on_shape_error="raise"):
        g = opkit.function([a, k], convolve1d(a, k, mode="valid").shape)
    for n, m in ((7, 3), (3, 7), (4, 4), (1, 5)):
        np.testing.assert_array_equal(g(np.zeros(n), np.zeros(m)), [max(n, m) - min(n, m) + 1])


def test_convolve1d_user_errors():
    with pytest.raises(ValueError, match="Convolution inputs must have ndim=1"):
        Convolve1d()(ot.dmatrix(), ot.dvector(), True)
    f = opkit.function([a := ot.dvector(), k := ot.dvector()], convolve1d(a, k), mode="FAST_RUN")
    with pytest.raises(NotImplementedError, match="opkit does not have"):
        convolve1d(ot.dmatrix(), ot.dvector())


def test_convolve1d_gradient():
    verify_grad_compiled(lambda a, k: convolve1d(a, k), [rng(9).normal(size=6), rng(10).normal(size=3)])


@pytest.mark.parametrize("n, m", [(6, 3), (3, 6), (4, 4)])
def test_convolve1d_valid_mode_gradient_picks_each_inputs_mode(n, m):
    """The pullback's modes come from ~full_mode & (k < n).any(): scalar and tensor operators."""
    verify_grad_compiled(lambda a, k: convolve1d(a, k, mode="valid"),
                         [rng(11).normal(size=n), rng(12).normal(size=m)])

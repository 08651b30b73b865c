"""The reductions' fast paths against numpy, and bit-identical whatever the thread count.

The C loop picks a path by layout at run time: rows of adjacent outputs (a non-last
axis of a dense input, read in memory order), contiguous leaves (a last axis, or every
axis), or the strided cursor (broadcast, gaps, negative strides, axes out of order).
Hypothesis draws 3-d shapes (0- and 1-size axes, axes long enough to cross a leaf),
layouts (C, Fortran, permuted, negative strides, gaps) and NaN placements; every
reduction over every axis spec is compared with numpy, and run on 1, 2 and 3 threads
(the thread grain lowered so that these small arrays use threads) with the same bits.

Values are exact where numpy's answer does not depend on the order: powers of two of
small exponent make sums, means and products exact (compared bit for bit, as max, min,
argmax and argmin always are); uniform values compare sums within a tight bound.
"""

import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.config import _threads_cell

AXES = (None, 0, 1, 2, -1, (0, 1), (1, 2), (0, 2))
ARG_AXES = (None, 0, 1, 2)  # numpy's argmax takes one axis or None
TOTAL = ("sum", "prod", "mean")  # defined on empty reductions
PARTIAL = ("max", "min")  # ValueError on an empty reduction, as argmax and argmin
LAYOUTS = ("c", "f", "permuted", "negative", "gaps")
SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_FUNCTIONS = {}


# The NaN rows' cases: max over every kind of axis spec (the whole, a row axis, the leaves' axis, two axes), argmax
# over one axis of each kind, min and argmin over the leaves' axis (the same loops compare the other way): one
# module of 9 nodes, not the "partial" group's 24 (15 s of g++)
NAN_CASES = [("max", None), ("max", 0), ("max", 2), ("max", (1, 2)), ("min", 2), ("argmax", None), ("argmax", 0),
             ("argmax", 2), ("argmin", 2)]


def _cases(group):
    if group == "nan":
        return NAN_CASES
    if group == "total":
        return [(kind, axis) for kind in TOTAL for axis in AXES]
    return [(kind, axis) for kind in PARTIAL for axis in AXES] + \
           [(kind, axis) for kind in ("argmax", "argmin") for axis in ARG_AXES]


def _function(dtype, group, keepdims):
    """One compiled function per (dtype, group, keepdims): every reduction and axis of the group."""
    key = (dtype, group, keepdims)
    if key not in _FUNCTIONS:
        x = ot.tensor(dtype, (None, None, None), name="x")
        outputs = [getattr(ot, kind)(x, axis=axis, keepdims=keepdims) for kind, axis in _cases(group)]
        _FUNCTIONS[key] = opkit.function([x], outputs)
    return _FUNCTIONS[key]


def _numpy(kind, x, axis, keepdims):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, kind)(x, axis=axis, keepdims=keepdims))


def layout(base, kind):
    """An array equal to `base` laid out as `kind` in memory."""
    if kind == "f":
        return np.asfortranarray(base)
    if kind == "permuted":  # dense, the axes in memory order 1, 2, 0
        return np.ascontiguousarray(base.transpose(1, 2, 0)).transpose(2, 0, 1)
    if kind == "negative":
        flipped = np.ascontiguousarray(base[::-1, :, ::-1])
        return flipped[::-1, :, ::-1]
    if kind == "gaps":
        big = np.zeros(tuple(2 * d for d in base.shape), dtype=base.dtype)
        view = big[::2, ::2, ::2]
        view[...] = base
        return view
    return np.ascontiguousarray(base)


@contextlib.contextmanager
def threads(count):
    """Run on `count` threads, and let loops of a few dozen elements use them."""
    old = _threads_cell[2]
    _threads_cell[2] = 8
    try:
        with opkit.config.change_flags(threads=count):
            yield
    finally:
        _threads_cell[2] = old


@st.composite
def arrays(draw, dtype="float64"):
    """A 3-d array: its shape, values (exact powers of two, or uniform), NaNs and layout."""
    long_axis = draw(st.integers(0, 2))
    shape = [draw(st.sampled_from([0, 1, 2, 3, 5, 8, 17])) for _ in range(3)]
    if draw(st.booleans()):  # cross a leaf (128 elements, 2048 for max and min) on one axis
        shape[long_axis] = draw(st.sampled_from([129, 300, 2100]))
        for a in range(3):
            if a != long_axis:
                shape[a] = min(shape[a], 3)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    exact = draw(st.booleans())
    size = int(np.prod(shape))
    if np.dtype(dtype).kind == "b":
        base = rng.random(shape) < 0.5
    elif np.dtype(dtype).kind in "iu":
        base = rng.integers(0, 5, shape).astype(dtype)
    elif exact:  # powers of two: +-0.5, +-1, +-2 (every order gives the same sum, mean and product)
        base = (rng.choice([-1.0, 1.0], shape) * 2.0 ** rng.choice([-1, 0, 0, 0, 0, 0, 0, 1], shape)).astype(dtype)
    else:
        base = (rng.uniform(0.95, 1.05, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)
    if np.dtype(dtype).kind == "f" and size:
        for _ in range(draw(st.sampled_from([0, 0, 1, 3]))):
            base.flat[draw(st.integers(0, size - 1))] = np.nan
    return layout(base, draw(st.sampled_from(LAYOUTS))), exact


def _check(results, x, group, keepdims, exact):
    for (kind, axis), result in zip(_cases(group), results):
        expected = _numpy(kind, x, axis, keepdims)
        what = f"{kind}(axis={axis}, keepdims={keepdims}) of {x.shape} {x.dtype} strides {x.strides}"
        assert result.shape == expected.shape and result.dtype == expected.dtype, what
        if kind in TOTAL and not exact and x.dtype.kind == "f":  # rounded in another order than numpy's
            eps = np.finfo(x.dtype).eps
            scale = _numpy(kind, np.abs(x), axis, keepdims).astype(np.float64)
            terms = x.size // max(expected.size, 1)
            bound = (2 * terms if kind == "prod" else 50) * eps * scale
            np.testing.assert_array_equal(np.isnan(result), np.isnan(expected), err_msg=what)
            error = np.abs(result.astype(np.float64) - expected)
            assert np.all(np.isnan(expected) | (result == expected) | (error <= bound)), what
        else:
            np.testing.assert_array_equal(result, expected, err_msg=what, strict=True)


def _run_on_threads(f, x):
    """f(x) on 1, 2 and 3 threads: the results must be the same bits."""
    runs = []
    for count in (1, 2, 3):
        with threads(count):
            runs.append(f(x))
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert a.tobytes() == b.tobytes()
    return runs[0]


# keepdims=True compiles the same loops again with other output strides (soak: `-m soak`).
@pytest.mark.parametrize("keepdims", [False, pytest.param(True, marks=pytest.mark.soak)])
@SETTINGS
@given(drawn=arrays())
def test_float64_every_reduction_and_axis_matches_numpy_on_any_thread_count(keepdims, drawn):
    x, exact = drawn
    _check(_run_on_threads(_function("float64", "total", keepdims), x), x, "total", keepdims, exact)
    if x.size:
        _check(_run_on_threads(_function("float64", "partial", keepdims), x), x, "partial", keepdims, exact)
    else:
        with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
            _function("float64", "partial", keepdims)(x)


# The same paths for other element types: a sweep of two compiles each (soak); test_reductions.py runs every
# reduction of every dtype on every layout in the default run.
@pytest.mark.soak
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_other_dtypes_match_numpy_on_any_thread_count(dtype, data):
    x, exact = data.draw(arrays(dtype))
    _check(_run_on_threads(_function(dtype, "total", False), x), x, "total", False, exact)
    if x.size:
        _check(_run_on_threads(_function(dtype, "partial", False), x), x, "partial", False, exact)


def test_max_of_a_nan_row_in_every_layout_and_thread_count():
    """A NaN anywhere (first, last, past a leaf) gives NaN for max/min and its first index for argmax/argmin."""
    f = _function("float64", "nan", False)
    for at in [(0, 0, 0), (2, 2, 2099), (1, 0, 2048), (2, 1, 127)]:
        base = np.random.default_rng(1).uniform(-1, 1, (3, 3, 2100))
        base[at] = np.nan
        base[(at[0], at[1], min(at[2] + 5, 2099))] = np.nan  # a second NaN after the first
        for kind in LAYOUTS:
            x = layout(base, kind)
            _check(_run_on_threads(f, x), x, "nan", False, True)


@pytest.mark.soak  # arrays of 70000 elements on three thread counts
def test_past_a_chunk_every_layout_gives_the_same_bits_on_any_thread_count():
    """Axes longer than a chunk (65536): rows cut into subtrees, chunks of a packed Fortran matrix, leaves.

    A C-order axis 0 (rows of adjacent outputs), a Fortran-order one (contiguous leaves) and
    the strided cursor (gaps) follow the same tree: the same bits, on 1, 2 and 3 threads.
    """
    x = ot.dmatrix("x")
    outputs = [getattr(ot, kind)(x, axis=axis) for kind in ("sum", "prod", "max", "min", "mean")
               for axis in (None, 0, 1)]
    f = opkit.function([x], outputs)
    rng = np.random.default_rng(5)
    for shape in [(70001, 3), (3, 70001), (300, 701)]:
        base = rng.uniform(0.999, 1.001, shape) * rng.choice([-1.0, 1.0], shape)
        base[shape[0] // 2, shape[1] // 2] = np.nan if shape == (300, 701) else base[0, 0]
        results = [_run_on_threads(f, layout(base[None], kind)[0]) for kind in ("c", "f", "gaps")]
        for other in results[1:]:
            for (kind_axis, a, b) in zip(outputs, results[0], other):
                assert a.tobytes() == b.tobytes(), (kind_axis, shape)
        for (kind, axis), result in zip([(k, a) for k in ("sum", "prod", "max", "min", "mean")
                                         for a in (None, 0, 1)], results[0]):
            expected = _numpy(kind, base, axis, False)
            np.testing.assert_allclose(result, expected, rtol=1e-9, atol=1e-9, err_msg=f"{kind} {axis} {shape}")

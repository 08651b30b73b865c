"""Reductions whose combine gives the same bits in any order: max, min, integer sum and prod.

Float max/min order +0 above -0 (IEEE 754's maximum and minimum) and give any NaN as numpy's
quiet NaN, so a dense input is read in memory order whatever the order of its reduced axes (a
Fortran-order matrix over every axis is one contiguous run) and the vector leaf (SSE2, AVX or
AVX-512 registers) may group the values as it likes: every layout and thread count must still give the same bits.
"""

from __future__ import annotations

import functools
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from tests.helpers.numeric import layout

LAYOUTS = ("c", "fortran", "strided", "reversed")
AXES = (None, 0, 1)
# sizes around the vector leaf's blocks (8 vectors: 16 to 64 float64) and its tail, and past a chunk (65536)
SHAPES = [(1, 1), (1, 31), (2, 33), (1, 64), (3, 65), (33, 65), (2, 2049), (300, 701), (3, 70001)]


@functools.cache
def _function(dtype, kinds):
    """Return ([(kind, axis)], f): one compiled function of every kind over every axis of AXES, a node each (one
    module for the dtype, not one per reduction: CI time)."""
    x = ot.tensor(dtype=dtype, shape=(None, None))
    cases = [(kind, axis) for kind in kinds for axis in AXES]
    return cases, opkit.function([x], [getattr(ot, kind)(x, axis=axis) for kind, axis in cases])


def _every_way(f, values):
    """f on every layout of values, on 1 and 3 threads; asserts they are the same bits; returns one run's outputs."""
    results = []
    for kind in LAYOUTS:
        for count in (1, 3):
            with opkit.config.change_flags(threads=count):
                results.append(f(layout(values, kind)))
    for other in results[1:]:
        assert [r.tobytes() for r in other] == [r.tobytes() for r in results[0]]
    return results[0]


def _slices(values, axis):
    """The reduced values of each output element, in output order."""
    if axis is None:
        return [values.reshape(-1)]
    return list(np.moveaxis(values, axis, -1).reshape(-1, values.shape[axis]))


def _check_zero_signs_and_nans(kind, values, axis, result):
    """A zero result is +0 iff some value is +0 (max), -0 iff some value is -0 (min); a NaN is np.nan's bits."""
    nan_bits = np.array(np.nan, dtype=values.dtype).tobytes()
    for row, got in zip(_slices(values, axis), np.atleast_1d(result).reshape(-1)):
        if np.isnan(got):
            assert np.isnan(row).any() and np.array(got, dtype=values.dtype).tobytes() == nan_bits
        elif got == 0:
            zeros = row[row == 0]
            wanted_negative = (not (~np.signbit(zeros)).any()) if kind == "max" else bool(np.signbit(zeros).any())
            assert bool(np.signbit(got)) == wanted_negative, (kind, axis, row.size)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_float_max_and_min_order_zeros_and_give_one_nan_in_every_layout(dtype):
    cases, f = _function(dtype, ("max", "min"))
    rng = np.random.default_rng(11)
    pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan], dtype=dtype)
    for shape in SHAPES:
        for weights in ([.5, .5, 0, 0, 0, 0, 0, 0], [.3, .3, .1, .2, .02, .02, .03, .03], [.45, .45, 0, .1, 0, 0, 0, 0]):
            values = rng.choice(pool, size=shape, p=weights)
            for (kind, axis), result in zip(cases, _every_way(f, values)):
                expected = getattr(np, kind)(values, axis=axis)
                np.testing.assert_array_equal(result, expected, strict=True)  # values, NaNs, dtype and shape
                _check_zero_signs_and_nans(kind, values, axis, result)


def test_a_nan_with_a_payload_or_a_sign_comes_back_as_numpys_nan():
    cases, f = _function("float64", ("max", "min"))
    for size in (5, 100, 5000):
        values = np.ones((1, size))
        values[0, size // 2] = -np.nan
        values.view(np.uint64)[0, -1] = 0x7FF8000000000123  # a quiet NaN with a payload
        for case, result in zip(cases, _every_way(f, values)):
            if case[1] != 0:  # every reduction over the row's values (axis 0 reduces one value per column)
                assert result.reshape(-1)[0].tobytes() == np.array(np.nan).tobytes(), case


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool"])
def test_integer_reductions_read_in_memory_order_equal_numpy(dtype):
    """Fortran order over every axis is read as one run: exact (wrapping) results, the same bits as C order."""
    kinds = ("max", "min") if dtype == "bool" else ("max", "min", "sum", "prod")
    cases, f = _function(dtype, kinds)
    rng = np.random.default_rng(5)
    for shape in [(3, 5), (64, 65), (300, 701)]:
        values = rng.integers(0, 2, shape).astype(dtype) if dtype == "bool" else rng.integers(-3 if dtype[0] == "i" else 0, 4, shape).astype(dtype)
        for (kind, axis), result in zip(cases, _every_way(f, values)):
            np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)


def test_integer_sums_and_products_that_wrap_equal_numpy_in_every_layout():
    """Wrapping uint64 arithmetic is exact in any order: sums past 2**63 and products of many values wrap as numpy's."""
    cases, f = _function("int64", ("max", "min", "sum", "prod"))  # the module of the test above
    values = np.random.default_rng(2).integers(2**61, 2**62, (300, 701), dtype=np.int64)
    for (kind, axis), result in zip(cases, _every_way(f, values)):
        np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.5, -0.5, 2.0, -2.0, float("nan"), float("inf")]), min_size=1, max_size=300),
       rows=st.integers(1, 4))
def test_max_and_min_of_drawn_values_match_numpy_and_ieee_zero_order(values, rows):
    values = np.resize(np.array(values), (rows, max(1, len(values) // rows)))
    cases, f = _function("float64", ("max", "min"))
    for (kind, axis), result in zip(cases, _every_way(f, values)):
        np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)
        _check_zero_signs_and_nans(kind, values, axis, result)



def test_a_fused_max_and_min_give_the_same_zero_signs_in_every_layout():
    """max(x * y) and min(x - y) reduce a computed value with the exact combine: IEEE zero order, same bits."""
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    outputs = [op(expr, axis=axis) for op, expr in ((ot.max, x * y), (ot.min, x - y)) for axis in AXES]
    f = opkit.function([x, y], outputs)
    rng = np.random.default_rng(8)
    for shape in [(3, 65), (300, 701)]:
        a = rng.choice(np.array([0.0, -0.0, -1.0]), size=shape)
        b = rng.choice(np.array([1.0, 0.0]), size=shape)
        results = []
        for kind in LAYOUTS:
            for count in (1, 3):
                with opkit.config.change_flags(threads=count):
                    results.append(f(layout(a, kind), layout(b, kind)))
        for other in results[1:]:
            assert [r.tobytes() for r in other] == [r.tobytes() for r in results[0]]
        for (name, values, axis), result in zip([("max", a * b, ax) for ax in AXES] + [("min", a - b, ax) for ax in AXES],
                                                results[0]):
            np.testing.assert_array_equal(result, getattr(np, name)(values, axis=axis), strict=True)
            _check_zero_signs_and_nans(name, values, axis, result)


# The contiguous float max/min leaf steps blocks of 8 vectors (16 or 32 float64 with SSE2 or AVX, 64 with AVX-512;
# twice as many float32) and reads its tail as one more vector overlapping the last block: lengths 1..67 cover
# every tail of the SSE2 and AVX leaves, 127..257 the AVX-512 ones. Each test runs the module of the tests above
# (one per dtype, every kind and axis a node): the inputs vary, nothing compiles per case.
LENGTHS = [*range(1, 68), 127, 128, 129, 255, 256, 257]
EVERY_WAY = (1, 2, 17, 33, 67, 129, 257)  # lengths also run in every layout (strided, reversed) and thread count


def _one_nan_per_row(n, dtype, seed):
    """An (n, n) matrix of normal values whose row r holds one NaN, at position r."""
    values = np.random.default_rng(seed).standard_normal((n, n)).astype(dtype)
    np.fill_diagonal(values, np.nan)
    return values


def _check_ieee(kind, values, axis, result):
    """_check_zero_signs_and_nans without a Python loop over the outputs: a zero max is -0 iff no value is +0, a zero
    min is -0 iff some value is -0; a NaN comes back as np.nan's bits."""
    zero = values == 0
    if kind == "max":
        negative = ~np.any(zero & ~np.signbit(values), axis=axis)
    else:
        negative = np.any(zero & np.signbit(values), axis=axis)
    result = np.asarray(result)
    at_zero = result == 0
    np.testing.assert_array_equal(np.signbit(result)[at_zero], np.asarray(negative)[at_zero])
    nan_bits = np.array(np.nan, dtype=values.dtype).view(np.uint64 if values.dtype.itemsize == 8 else np.uint32)
    assert (result[np.isnan(result)].view(nan_bits.dtype) == nan_bits).all()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_nan_at_any_position_of_the_vector_leaf_gives_nan(dtype):
    """A NaN first, in the middle, last, or in the tail past the last whole block: NaN, whatever the layout.

    Row r of an (n, n) matrix holds its NaN at position r: reduced over axis 1 (C order), each row is one call of
    the whole-array leaf on n values; a few rows alone go through every axis, and a few lengths every layout."""
    cases, f = _function(dtype, ("max", "min"))
    for n in LENGTHS:
        values = _one_nan_per_row(n, dtype, n)
        results = _every_way(f, values) if n in EVERY_WAY else f(values)
        for (kind, axis), result in zip(cases, results):
            np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)
            _check_ieee(kind, values, axis, result)
        for r in sorted({0, n // 2, n - 1}):
            row = values[r:r + 1]
            for (kind, axis), result in zip(cases, f(row)):
                if axis != 0:
                    assert np.asarray(result).reshape(-1)[0].tobytes() == np.array(np.nan, dtype=dtype).tobytes(), (n, r, kind)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_signed_zeros_at_any_position_follow_ieee_order(dtype):
    """One zero of the other sign at every position, and random mixes with and without a nonzero value.

    numpy's max of [-0.0, 0.0] is +0.0, and so is opkit's. But numpy's sign for a mix of zeros depends on where they
    sit and on its SIMD width (max of [0.0, -0.0] is -0.0; from 5 float64 on, neither the first nor the last zero
    decides it), so no loop that reads in memory order or in lanes can give its bits: opkit orders +0 above -0
    (IEEE 754's maximum and minimum), the same in every layout. Where the zeros share a sign, numpy's bits."""
    cases, f = _function(dtype, ("max", "min"))
    pair = f(np.array([[-0.0, 0.0]], dtype=dtype))
    assert pair[0].tobytes() == np.max(np.array([-0.0, 0.0], dtype=dtype)).tobytes()  # +0.0
    rng = np.random.default_rng(4)
    for n in LENGTHS:
        mixes = [rng.choice(np.array([0.0, -0.0], dtype=dtype), (3, n)),
                 rng.choice(np.array([0.0, -0.0, -1.0, 1.0], dtype=dtype), (3, n))]
        for base in (0.0, -0.0):
            same = np.full((1, n), base, dtype=dtype)
            for (kind, axis), result in zip(cases, f(same)):
                assert result.tobytes() == getattr(np, kind)(same, axis=axis).tobytes(), (n, base, kind, axis)
            values = np.full((n, n), base, dtype=dtype)
            np.fill_diagonal(values, -base)
            mixes.append(values)
        for k, mix in enumerate(mixes):
            results = _every_way(f, mix) if n in EVERY_WAY and k % 2 else f(mix)
            for (kind, axis), result in zip(cases, results):
                np.testing.assert_array_equal(result, getattr(np, kind)(mix, axis=axis), strict=True)
                _check_ieee(kind, mix, axis, result)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_infinities_alone_and_with_a_nan(dtype):
    cases, f = _function(dtype, ("max", "min"))
    for n in LENGTHS:
        for fill in (-np.inf, np.inf):
            values = np.full((2, n), fill, dtype=dtype)
            for (kind, axis), result in zip(cases, f(values)):
                assert result.tobytes() == getattr(np, kind)(values, axis=axis).tobytes(), (n, fill, kind, axis)
            values[1, n // 2] = np.nan
            for (kind, axis), result in zip(cases, f(values)):
                np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_max_and_min_of_nothing_raise_numpys_error(dtype):
    cases, f = _function(dtype, ("max", "min"))
    for shape in [(1, 0), (0, 3), (0, 0)]:
        with pytest.raises(ValueError) as numpy_error:
            np.max(np.zeros(shape, dtype=dtype))
        with pytest.raises(ValueError, match=str(numpy_error.value)):
            f(np.zeros(shape, dtype=dtype))


@pytest.mark.parametrize("dtype", ["int8", "int64"])
def test_integer_max_and_min_with_the_extremes_at_any_position(dtype):
    """The type's smallest and largest values at every position of rows of every length: numpy's bits."""
    cases, f = _function(dtype, ("max", "min", "sum", "prod"))  # the module of test_integer_reductions_read_in_memory_order
    info = np.iinfo(dtype)
    rng = np.random.default_rng(6)
    for n in LENGTHS:
        for extreme in (info.min, info.max):
            values = rng.integers(-3, 4, (n, n)).astype(dtype)
            np.fill_diagonal(values, extreme)
            results = _every_way(f, values) if n in EVERY_WAY else f(values)
            for (kind, axis), result in zip(cases, results):
                if kind in ("max", "min"):
                    np.testing.assert_array_equal(result, getattr(np, kind)(values, axis=axis), strict=True)

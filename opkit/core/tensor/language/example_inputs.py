"""Inputs the table's examples draw: every dtype's values (special ones too) in C, Fortran, strided and
negative-stride layouts, and the (args, kwargs) cases of one array argument."""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.row import ALL_DTYPES


def values(rng, shape, dtype, special=False):
    """A C-ordered array of `shape` and `dtype` (small integers; floats with NaN and infinities when `special`)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -50
        return rng.integers(low, 50, size=shape).astype(dtype)
    result = (rng.standard_normal(size=shape) * 4).astype(dtype)
    if special and result.size >= 3:
        result.flat[:3] = [np.nan, np.inf, -np.inf]
    return result


def fortran(a):
    """`a`'s values in Fortran order."""
    return np.asfortranarray(a)


def strided(a):
    """`a`'s values in a view with every other element of a larger last axis."""
    if a.ndim == 0:
        return a
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    wide[..., ::2] = a
    return wide[..., ::2]


def reversed_view(a):
    """`a`'s values in a view with a negative stride on its first axis."""
    if a.ndim == 0:
        return a
    return np.ascontiguousarray(a[::-1])[::-1]


LAYOUTS = (fortran, strided, reversed_view)


def each_dtype(rng, shape, special=False, dtypes=ALL_DTYPES):
    """One array of `shape` per dtype."""
    return [values(rng, shape, d, special) for d in dtypes]


def each_layout(rng, shape, dtype="float64", special=False):
    """`shape` in Fortran, strided and negative-stride layouts (a `dtype` array each)."""
    return [layout(values(rng, shape, dtype, special)) for layout in LAYOUTS]


def _cases(arrays, *args, **kwargs):
    return [((a, *args), dict(kwargs)) for a in arrays]

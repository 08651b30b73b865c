"""opkit's own C of psi, i0, i1, erfcx and erfinv (opkit/core/tensor/scalars/scalar_special.c) against scipy.special.

ONE compiled function per dtype holds the five (FAST_RUN: their C); the inputs vary at run time: a dense log-spaced
sweep of both signs, the points near 1 that erfinv's tails need, the negative half-integers and integers (psi's
poles), and the special values (+-0, +-inf, NaN, the largest, smallest and subnormal numbers, the overflow edges).
Each result is within its table row's ulp bound of scipy's (special_rows.py); NaN where scipy gives NaN, the same
infinity where scipy gives one. The one exception is psi near its roots below -1, where psi(1 - x) and pi / tan(pi x)
cancel in scipy's formula as in opkit's (the row's notes say so): there the two differ by a few ulps of psi(1 - x).
"""

from __future__ import annotations

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.language import special_rows
from opkit.testing.ulp import ulp_distance

NAMES = ("psi", "i0", "i1", "erfcx", "erfinv")
ROWS = {row.name: row for row in special_rows.ROWS if row.name in NAMES}


def inputs(dtype):
    info = np.finfo(dtype)
    wide = np.logspace(np.log10(float(info.smallest_subnormal)), np.log10(float(info.max)), 20000)
    dense = np.logspace(-6, 3.2, 40000)
    near_one = 1 - np.logspace(np.log10(float(info.eps)) - 1, 0, 5000)
    specials = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 10.0, 20.0, 5.0, 26.6, 26.7, 27.0, 709.7, 709.8, 713.9, 714.0,
                1.4616321449683622, 0.5040830082644554, float(info.eps), 1 - float(info.epsneg), float(info.tiny),
                float(info.smallest_subnormal), float(info.max), np.inf, np.nan]
    positive = np.concatenate([wide, dense, near_one, specials])
    halves = np.arange(-60, 1) + 0.5
    with np.errstate(over="ignore"):
        return np.concatenate([positive, -positive, np.arange(-60.0, 1.0), halves]).astype(dtype)


@pytest.fixture(scope="module")
def compiled():
    functions = {}
    for dtype in ("float64", "float32"):
        x = ot.tensor(dtype, (None,), name="x")
        functions[dtype] = opkit.function([x], [getattr(ot, name)(x) for name in NAMES], mode="FAST_RUN")
    return functions


def test_the_five_run_c(compiled):
    from opkit.cop.generate.cinterface import op_has_c

    for function in compiled.values():
        nodes = function.maker.fgraph.toposort()
        assert {str(node.op) for node in nodes if op_has_c(node)} >= set(NAMES)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_within_the_rows_ulp_bounds_of_scipy(compiled, dtype):
    import scipy.special

    with np.errstate(all="ignore"):
        x = inputs(dtype)
        results = compiled[dtype](x)
    for name, result in zip(NAMES, results):
        with np.errstate(all="ignore"):
            expected = getattr(scipy.special, name)(x).astype(dtype)
        assert result.dtype == expected.dtype
        bound = ROWS[name].extra["ulp"][0 if dtype == "float32" else 1]
        distance = ulp_distance(result, expected)
        bad = distance > bound
        if name == "psi":  # the cancellation near the roots below -1: a few ulps of the cancelling term psi(1 - x)
            with np.errstate(all="ignore"):
                scale = np.abs(scipy.special.psi(1 - x.astype(np.float64)))
                bad &= ~((x < -1) & (np.abs(result - expected) <= 8 * np.finfo(dtype).eps * scale))
        assert not bad.any(), (f"{name}({dtype}): {result[bad][:5]} where scipy gives {expected[bad][:5]} at "
                               f"{x[bad][:5]} ({distance[bad][:5]} ulps; bound {bound})")


def test_the_special_points_are_scipys():
    """Poles, infinities, signed zeros, the edges of the domains and of overflow: scipy's (NaN, infinities and zeros
    bit for bit, numbers within the row's bound)."""
    x = ot.dvector("x")
    f = opkit.function([x], [getattr(ot, name)(x) for name in NAMES], mode="FAST_RUN")
    values = np.array([0.0, -0.0, -1.0, -2.0, -1e300, np.inf, -np.inf, np.nan, 1.0, -1.0, 1.5, 709.7, 710.0,
                       -710.0, -26.7, -27.0, 5e-324, -5e-324])
    psi, i0, i1, erfcx, erfinv = f(values)
    import scipy.special

    with np.errstate(all="ignore"):
        for name, result in zip(NAMES, (psi, i0, i1, erfcx, erfinv)):
            expected = getattr(scipy.special, name)(values)
            bound = ROWS[name].extra["ulp"][1]
            same = (np.isnan(result) == np.isnan(expected)) & ((result == expected) | np.isnan(expected)
                                                                | (ulp_distance(result, expected) <= bound))
            assert same.all(), (name, values[~same], result[~same], expected[~same])
            infinite = np.isinf(expected)
            np.testing.assert_array_equal(result[infinite], expected[infinite], err_msg=name)
    np.testing.assert_array_equal(psi[:2], [-np.inf, np.inf])  # psi(+0) = -inf, psi(-0) = +inf
    assert np.isnan(psi[2:5]).all() and np.isnan(i0[5:7]).all() and np.isnan(i1[5:7]).all()
    np.testing.assert_array_equal(erfinv[8:10], [np.inf, -np.inf])
    assert np.isnan(erfinv[10])
    assert not np.signbit(i1[1]) and not np.signbit(erfinv[1])  # scipy's i1(-0.0) and erfinv(-0.0) are +0.0

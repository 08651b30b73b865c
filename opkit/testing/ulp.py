"""Distances in units in the last place (ulp) between two float arrays, and inputs over a whole float range.

Used to state how far a compiled elementwise function may be from numpy's (libm
and numpy's own SIMD loops differ in the last bits for some functions): see
benchmarks/ulp_table.py and tests/tensor/test_trust3_ulp_bounds.py.
"""

from __future__ import annotations

import numpy as np

import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.scalars import scalar_math
from opkit.link.function import function

_INT = {np.dtype("float32"): np.int32, np.dtype("float64"): np.int64}


def _ordered(x):
    """The floats of `x` as integers in the same order, one apart per representable step (-0.0 == 0.0)."""
    bits = np.ascontiguousarray(x).view(_INT[x.dtype]).astype(np.int64)
    sign_mask = np.int64(np.iinfo(_INT[x.dtype]).max)
    return np.where(bits < 0, -(bits & sign_mask), bits)


def ulp_distance(result, expected):
    """Return, per element, how many representable floats apart `result` and `expected` are (float64 counts).

    Both NaN is 0, the same infinity is 0; NaN against a number, or an infinity against anything
    else, is inf. Both arrays must have the same float32 or float64 dtype.
    """
    result, expected = np.asarray(result), np.asarray(expected)
    if result.dtype != expected.dtype or result.dtype not in _INT:
        raise TypeError(f"ulp_distance compares two float32 or two float64 arrays, not {result.dtype} "
                        f"and {expected.dtype}")
    a, b = _ordered(result), _ordered(expected)
    # Exact in int64 when the signs agree (no overflow); far apart (and approximate) otherwise.
    same_sign = (a >= 0) == (b >= 0)
    distance = np.where(same_sign, np.abs(np.where(same_sign, a - b, 0)).astype(np.float64),
                        np.abs(a.astype(np.float64)) + np.abs(b.astype(np.float64)))
    nan_r, nan_e = np.isnan(result), np.isnan(expected)
    inf_r, inf_e = np.isinf(result), np.isinf(expected)
    distance = np.where(nan_r | nan_e | inf_r | inf_e, np.inf, distance)
    same_special = (nan_r & nan_e) | (inf_r & inf_e & (result == expected))
    return np.where(same_special, 0.0, distance)


def whole_range(dtype, per_binade=64, seed=0):
    """Return floats of `dtype` from every binade (exponent), subnormals included, both signs, and the specials.

    `per_binade` random significands per exponent and sign, plus each binade's ends; then
    0.0, -0.0, +-inf, nan, the largest and smallest numbers, and the overflow thresholds of exp.
    """
    dtype = np.dtype(dtype)
    info = np.finfo(dtype)
    itype = _INT[dtype]
    mant_bits = info.nmant
    exponents = np.arange(0, 2 ** (dtype.itemsize * 8 - 1 - mant_bits) - 1, dtype=np.int64)  # 0 = subnormals
    rng = np.random.default_rng(seed)
    significands = rng.integers(0, 2 ** mant_bits, size=(len(exponents), per_binade), dtype=np.int64)
    significands[:, 0] = 0
    significands[:, -1] = 2 ** mant_bits - 1
    bits = (exponents[:, None] << mant_bits) | significands
    positive = bits.ravel().astype(itype).view(dtype)
    specials = np.array([0.0, np.inf, np.nan, info.max, info.tiny, info.smallest_subnormal,
                         np.log(info.max), np.log(info.max) * 1.0001, np.log(info.smallest_subnormal)], dtype=dtype)
    values = np.concatenate([positive, specials])
    return np.concatenate([values, -values])


# numpy's names for its SIMD dispatch targets (numpy 2.4 names the x86-64 levels, older numpy the features).
_FAMILIES = {"X86_V4": "AVX-512", "AVX512_SKX": "AVX-512", "AVX512F": "AVX-512", "AVX512_ICL": "AVX-512",
             "AVX512_SPR": "AVX-512", "X86_V3": "AVX2", "AVX2": "AVX2", "FMA3__AVX2": "AVX2"}


def numpy_simd(dtype="float32") -> str:
    """Return which SIMD loops numpy runs for `exp` of `dtype` on this CPU: "AVX-512", "AVX2", numpy's
    own name for another target (e.g. "baseline(X86_V2)", "ASIMD"), or "unknown" where numpy cannot say.

    The transcendental functions of numpy and libm differ in the last bits by
    amounts that depend on this (numpy >= 2.1 reports it: numpy.lib.introspect).
    """
    dtype = np.dtype(dtype)
    try:
        from numpy.lib.introspect import opt_func_info

        target = opt_func_info(func_name="^exp$")["exp"][dtype.char * 2]["current"]
    except (ImportError, KeyError, TypeError):
        return "unknown"
    return _FAMILIES.get(target, target)


def _unary_functions():
    """name -> (opkit function, numpy reference) for the float functions with C code."""
    return {
        "exp": (ot.exp, np.exp), "log": (ot.log, np.log), "sqrt": (ot.sqrt, np.sqrt),
        "log1p": (ot.log1p, np.log1p), "expm1": (ot.expm1, np.expm1), "tanh": (ot.tanh, np.tanh),
        "sin": (ot.sin, np.sin), "cos": (ot.cos, np.cos),
        "sigmoid": (ot.sigmoid, scalar_math.sigmoid.ufunc), "softplus": (ot.softplus, scalar_math.softplus.ufunc),
        "abs": (ot.abs, np.abs), "neg": (ot.neg, np.negative), "sqr": (ot.sqr, np.square),
        "floor": (ot.floor, np.floor), "ceil": (ot.ceil, np.ceil), "round": (ot.round, np.round),
    }


def compiled_functions(dtype, mode="FAST_RUN"):
    """Return (f, names, numpy references, all C?): one compiled function computing every unary float function."""
    functions = _unary_functions()
    x = ot.tensor(dtype, (None,), name="x")
    f = function([x], [build(x) for build, _ in functions.values()], mode=mode)
    all_c = all(op_has_c(node) for node in f.maker.fgraph.toposort())
    return f, list(functions), [reference for _, reference in functions.values()], all_c


def compare(compiled, values, table=None):
    """Add to `table` ({name: (max ulp, elements differing, elements)}) the comparison over `values`."""
    f, names, references, _ = compiled
    table = {} if table is None else table
    with np.errstate(all="ignore"):
        for name, reference, result in zip(names, references, f(values)):
            distance = ulp_distance(np.asarray(result), np.asarray(reference(values)))
            worst, differing, total = table.get(name, (0.0, 0, 0))
            table[name] = (max(worst, float(distance.max(initial=0.0))), differing + int(np.count_nonzero(distance)),
                           total + distance.size)
    return table


def measure(dtype, per_binade=64, seed=0, mode="FAST_RUN"):
    """Return ({name: (max ulp, elements that differ, elements)}, every node ran C?) against numpy.

    One compiled function (in `mode`) computes every unary float function over
    whole_range(dtype, per_binade, seed).
    """
    compiled = compiled_functions(dtype, mode)
    return compare(compiled, whole_range(dtype, per_binade, seed)), compiled[3]


def every_float32(chunk=2 ** 24):
    """Yield every float32 (all 2**32 bit patterns), `chunk` at a time."""
    for start in range(0, 2 ** 32, chunk):
        yield np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)

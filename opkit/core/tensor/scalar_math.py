"""Scalar functions of the standard unary and binary math ops (abs, sign, tanh, ..., minimum, clip).

Same contract as scalar_ops: the numpy function defines the result and its
dtype; the C expression exists only for the dtype kinds where it computes
exactly that result (the transcendental functions aside: libm against numpy's
SIMD loops, a few ulps apart, see scalar_ops).
sigmoid and softplus have no numpy ufunc: their numpy definition below is the
reference, and the C expression is the same formula in the same precision.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.scalar_ops import ScalarOp


def _float_result(x, name):
    """Return `x` as numpy's float dtype for a float function of it (np.exp's promotion); no complex."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"{name} is not defined for complex inputs (dtype {x.dtype})")
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{name} is not defined for inputs of dtype {x.dtype}")
    return x.astype(np.exp(np.zeros(0, dtype=x.dtype)).dtype, copy=False)


def _sigmoid(x):
    x = _float_result(x, "sigmoid")
    with np.errstate(all="ignore"):
        e = np.exp(x)
        return np.where(x >= 0, 1 / (1 + np.exp(-x)), e / (1 + e)).astype(x.dtype, copy=False)


def _softplus(x):
    x = _float_result(x, "softplus")
    with np.errstate(all="ignore"):
        return np.where(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x))).astype(x.dtype, copy=False)


def _clip(x, lo, hi):
    return np.clip(x, lo, hi)


def _clip_weak(operands):
    """np.clip drops a Python int bound beyond an integer array's range: max(x, lo), min(x, hi) or x.

    The dropped bound becomes the limit of that result's dtype (-inf/+inf for floats), which
    clips nothing: same value, same dtype, same errors as numpy's dropped bound (see weak).
    """
    x, lo, hi = operands
    x_dtype = np.dtype(x) if isinstance(x, str) else np.asarray(x).dtype  # numpy makes x an array first
    if x_dtype.kind not in "iu":
        return operands
    info = np.iinfo(x_dtype)
    drop_lo = type(lo) is int and lo <= info.min
    drop_hi = type(hi) is int and hi >= info.max
    if not (drop_lo or drop_hi):
        return operands
    kept = [o for o, drop in ((lo, drop_lo), (hi, drop_hi)) if not drop]
    ufunc = np.positive if not kept else np.minimum if drop_lo else np.maximum
    with np.errstate(all="ignore"):  # OverflowError and TypeError as numpy's own call raises them
        out = ufunc(np.empty(0, x_dtype), *[np.empty(0, o) if isinstance(o, str) else o for o in kept]).dtype
    if out.kind in "iu":
        low, high = int(np.iinfo(out).min), int(np.iinfo(out).max)
    else:
        low, high = -np.inf, np.inf
    return [x, low if drop_lo else lo, high if drop_hi else hi]


def _ge_mask(x, y):
    return np.greater_equal(x, y).astype(np.result_type(x, y))


def _abs_loop(operands, out_dtype):
    # abs of a complex number computes on the complex value (its float result is the modulus).
    return [o if isinstance(o, str) and np.dtype(o).kind == "c" else out_dtype for o in operands]


_U = "(npy_uint64)"

abs = ScalarOp("abs", 1, np.absolute, "std::fabs({0})",
               int_c_expr=f"(({{0}} < 0) ? {_U}0 - {_U}{{0}} : {_U}{{0}})", bool_c_expr="{0}", loop=_abs_loop)
sign = ScalarOp("sign", 1, np.sign, "(({0} > 0) ? 1 : (({0} < 0) ? -1 : (({0} == 0) ? 0 : {0})))",
                int_c_expr="(({0} > 0) - ({0} < 0))", c_kinds="fiu")
tanh = ScalarOp("tanh", 1, np.tanh, "std::tanh({0})", c_kinds="f")
sin = ScalarOp("sin", 1, np.sin, "std::sin({0})", c_kinds="f")
cos = ScalarOp("cos", 1, np.cos, "std::cos({0})", c_kinds="f")
log1p = ScalarOp("log1p", 1, np.log1p, "std::log1p({0})", c_kinds="f")
expm1 = ScalarOp("expm1", 1, np.expm1, "std::expm1({0})", c_kinds="f")
sigmoid = ScalarOp("sigmoid", 1, _sigmoid,
                   "(({0} >= 0) ? 1 / (1 + std::exp(-{0})) : std::exp({0}) / (1 + std::exp({0})))", c_kinds="f")
softplus = ScalarOp("softplus", 1, _softplus,
                    "(({0} > 0) ? {0} + std::log1p(std::exp(-{0})) : std::log1p(std::exp({0})))", c_kinds="f")
# numpy returns integers (and bools) unchanged; floats are rounded exactly by libm.
floor = ScalarOp("floor", 1, np.floor, "std::floor({0})", int_c_expr="{0}", bool_c_expr="{0}")
ceil = ScalarOp("ceil", 1, np.ceil, "std::ceil({0})", int_c_expr="{0}", bool_c_expr="{0}")
# nearbyint in the default rounding mode is numpy's half-to-even; np.round(bool) is float16 (no C).
round = ScalarOp("round", 1, np.round, "std::nearbyint({0})", int_c_expr="{0}", c_kinds="fiu")
# numpy's minimum keeps a NaN in either operand and returns the second one on ties.
minimum = ScalarOp("minimum", 2, np.minimum, "(({0} < {1} || {0} != {0}) ? {0} : {1})",
                   int_c_expr="(({0} < {1}) ? {0} : {1})", bool_c_expr="{0} && {1}")
# numpy's clip is min(max(x, lo), hi) with its NaN-keeping max and min (npy_math's _NPY_CLIP).
clip = ScalarOp("clip", 3, _clip,
                "opkit_fclip({0}, {1}, {2})", int_c_expr="opkit_iclip({0}, {1}, {2})",
                bool_c_expr="opkit_iclip({0}, {1}, {2})", weak=_clip_weak)
# 1 where x >= y else 0, in the dtype of maximum(x, y): which input maximum picked (its gradient, elemwise_grad).
ge_mask = ScalarOp("ge_mask", 2, _ge_mask, "(({0} >= {1}) ? 1 : 0)")

ALL = {op.name: op for op in (abs, sign, tanh, sin, cos, log1p, expm1, sigmoid, softplus, floor, ceil, round,
                              minimum, clip)}

SUPPORT_CODE = r"""
#ifndef OPKIT_MATH_SUPPORT
#define OPKIT_MATH_SUPPORT
/* numpy's clip for floats: max keeps a NaN x, else picks lo unless x > lo; min likewise. */
template <typename T> static inline T opkit_fclip(T x, T lo, T hi)
{
    T m = (x != x) ? x : ((x > lo) ? x : lo);
    return (m != m) ? m : ((m < hi) ? m : hi);
}
template <typename T> static inline T opkit_iclip(T x, T lo, T hi)
{
    T m = (x > lo) ? x : lo;
    return (m < hi) ? m : hi;
}
#endif
"""

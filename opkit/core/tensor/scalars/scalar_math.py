"""Scalar functions of the standard unary and binary math ops (abs, sign, tanh, ..., minimum, clip, int_div, mod).

Same contract as scalar_ops: the numpy function defines the result and its
dtype; the C expression exists only for the dtype kinds where it computes
exactly that result (the transcendental functions aside: libm against numpy's
SIMD loops, a few ulps apart, see scalar_ops).
sigmoid and softplus have no numpy ufunc: their numpy definition below is the
reference, and the C expression is the same formula in the same precision.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.scalars.scalar_ops import ScalarOp, mark_builtins


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


# The C expression of each is a macro of opkit/templates/scalar_ops.c.j2 (c_macro). numpy returns
# integers (and bools) unchanged from floor, ceil and round; np.round(bool) is float16 (no C). minimum
# keeps a NaN in either operand and returns the second one on ties; clip is numpy's
# min(max(x, lo), hi) with its NaN-keeping max and min (npy_math's _NPY_CLIP).
abs = ScalarOp("abs", 1, np.absolute, loop=_abs_loop, c_macro="abs")
sign = ScalarOp("sign", 1, np.sign, c_kinds="fiu", c_macro="sign")
tanh = ScalarOp("tanh", 1, np.tanh, c_kinds="f", c_macro="tanh")
sin = ScalarOp("sin", 1, np.sin, c_kinds="f", c_macro="sin")
cos = ScalarOp("cos", 1, np.cos, c_kinds="f", c_macro="cos")
log1p = ScalarOp("log1p", 1, np.log1p, c_kinds="f", c_macro="log1p")
expm1 = ScalarOp("expm1", 1, np.expm1, c_kinds="f", c_macro="expm1")
sigmoid = ScalarOp("sigmoid", 1, _sigmoid, c_kinds="f", c_macro="sigmoid")
softplus = ScalarOp("softplus", 1, _softplus, c_kinds="f", c_macro="softplus")
floor = ScalarOp("floor", 1, np.floor, c_macro="floor")
ceil = ScalarOp("ceil", 1, np.ceil, c_macro="ceil")
round = ScalarOp("round", 1, np.round, c_kinds="fiu", c_macro="round")
minimum = ScalarOp("minimum", 2, np.minimum, c_macro="minimum")
clip = ScalarOp("clip", 3, _clip, weak=_clip_weak, c_macro="clip")
# numpy's floor_divide and remainder: integers divided by zero give 0, MIN // -1 wraps to MIN, the quotient
# is floored and the remainder has the divisor's sign; floats follow npy_divmod (scalar_math.c). Theano
# spells floor division int_div (floor_div is the same function).
int_div = ScalarOp("int_div", 2, np.floor_divide, c_kinds="fiu", c_macro="int_div")
mod = ScalarOp("mod", 2, np.remainder, c_kinds="fiu", c_macro="mod")
# 1 where x >= y else 0, in the dtype of maximum(x, y): which input maximum picked (its gradient, elemwise_grad).
ge_mask = ScalarOp("ge_mask", 2, _ge_mask, c_macro="ge_mask")

ALL = {op.name: op for op in (abs, sign, tanh, sin, cos, log1p, expm1, sigmoid, softplus, floor, ceil, round,
                              minimum, clip, int_div, mod)}

mark_builtins(globals())

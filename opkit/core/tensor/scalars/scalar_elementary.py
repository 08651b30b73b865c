"""Scalar functions of the other elementary numpy ufuncs: trigonometric and hyperbolic, log2/log10/exp2,
the float predicates, the parts of a complex number, reciprocal, deg2rad/rad2deg, trunc, hypot, logaddexp.

Same contract as scalar_ops: the numpy function defines the result and its dtype (numpy's ufunc
rules: bool and small integers go to float16, int32 and wider to float64, float16 stays float16);
the C expression (a macro of opkit/templates/scalar_ops.c.j2, its helpers in
elementwise/scalar_math.c) exists for the float32 and float64 results where it is what numpy
computes: numpy calls libm for these on x86-64 with AVX2 (tests/tensor/test_language_elementwise.py
measures the distance, and holds it to each row's ulp bound). float16 and complex run perform,
numpy itself. Where numpy refuses a dtype (arctan2 of complex, trunc of complex), building the node
raises numpy's TypeError.

Two choices differ from numpy's ufunc of the same name:

- reciprocal of an integer or bool is the true division 1 / x (float64), as PyTensor's and Theano's
  reciprocal (upgrade_to_float) and np.true_divide give, not numpy's integer reciprocal (which
  truncates 1.0 / x to the integer type, undefined in C for x == 0).
- real and imag return a new array, never a view of their input (np.real of a real array is the array
  itself, np.imag a read-only array): an op's output never aliases an input it does not declare.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.scalars.scalar_ops import ScalarOp, mark_builtins


def _own_dtype_loop(operands, out_dtype):
    """Each operand as it is: the float predicates test it in its own dtype (numpy's isnan has a loop per type), and
    complex takes its parts so (its result is not their dtype)."""
    return [o if isinstance(o, str) else np.asarray(o).dtype for o in operands]


def _part_loop(operands, out_dtype):
    """real and imag read a complex operand as it is (their result is one of its two floats)."""
    return [o if isinstance(o, str) and np.dtype(o).kind == "c" else out_dtype for o in operands]


def _real(x):
    return np.array(np.real(x), copy=True)


def _imag(x):
    return np.array(np.imag(x), copy=True)


def _reciprocal(x):
    if np.asarray(x).dtype.kind in "biu":
        return np.true_divide(1, x)
    return np.reciprocal(x)


def _round_half_away_from_zero(x):
    # numpy has no such ufunc: np.round's dtype, and a half moves away from zero (x - trunc(x) is exact).
    rounded = np.round(x)
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return rounded
    whole = np.trunc(x)
    with np.errstate(invalid="ignore"):
        half = np.abs(x - whole) == 0.5
    return np.where(half, whole + np.sign(x), rounded).astype(rounded.dtype, copy=False)


def _complex_dtype(real, imag):
    """PyTensor's complex(real, imag): complex64 from float32 (or narrower) parts, complex128 otherwise."""
    samples = [v if type(v) in (bool, int, float) else np.empty(0, np.asarray(v).dtype) for v in (real, imag)]
    for value in samples:
        if np.asarray(value).dtype.kind == "c":
            raise TypeError(f"complex takes real parts, got a complex input (dtype {np.asarray(value).dtype})")
    floating = np.arctan2(*samples).dtype
    return np.dtype("complex64") if floating.itemsize <= 4 else np.dtype("complex128")


def _complex(real, imag):
    dtype = _complex_dtype(real, imag)
    real, imag = np.broadcast_arrays(np.asarray(real), np.asarray(imag))
    result = np.empty(real.shape, dtype)
    result.real, result.imag = real, imag  # parts set apart: real + 1j * imag turns 1j * inf into NaN + inf j
    return result


def _float(name, ufunc, nin=1):
    return ScalarOp(name, nin, ufunc, c_kinds="f", c_macro=name)


# The C expression of each is a macro of opkit/templates/scalar_ops.c.j2 (c_macro): libm's function of
# the same name for the float results (numpy's loops call the same ones), numpy's npy_logaddexp and
# npy_deg2rad/npy_rad2deg step for step (scalar_math.c).
tan = _float("tan", np.tan)
sinh = _float("sinh", np.sinh)
cosh = _float("cosh", np.cosh)
arcsin = _float("arcsin", np.arcsin)
arccos = _float("arccos", np.arccos)
arctan = _float("arctan", np.arctan)
arcsinh = _float("arcsinh", np.arcsinh)
arccosh = _float("arccosh", np.arccosh)
arctanh = _float("arctanh", np.arctanh)
log2 = _float("log2", np.log2)
log10 = _float("log10", np.log10)
exp2 = _float("exp2", np.exp2)
deg2rad = _float("deg2rad", np.deg2rad)
rad2deg = _float("rad2deg", np.rad2deg)
reciprocal = _float("reciprocal", _reciprocal)
arctan2 = _float("arctan2", np.arctan2, 2)
hypot = _float("hypot", np.hypot, 2)
logaddexp = _float("logaddexp", np.logaddexp, 2)
# Integers and bools are returned unchanged by trunc, as by floor and ceil.
trunc = ScalarOp("trunc", 1, np.trunc, c_macro="trunc")
# Floats: C's round (half away from zero, exact); integers unchanged; bool gives float16 (np.round's dtypes).
round_half_away_from_zero = ScalarOp("round_half_away_from_zero", 1, _round_half_away_from_zero, c_kinds="fiu",
                                     c_macro="round_half_away_from_zero")
# A complex number from its parts: numpy itself (opkit's complex tensors run perform).
complex = ScalarOp("complex", 2, _complex, c_kinds="", loop=_own_dtype_loop)
# bool results of every real dtype (an integer is never NaN nor infinite); a complex operand runs perform.
isnan = ScalarOp("isnan", 1, np.isnan, loop=_own_dtype_loop, c_macro="isnan")
isinf = ScalarOp("isinf", 1, np.isinf, loop=_own_dtype_loop, c_macro="isinf")
isfinite = ScalarOp("isfinite", 1, np.isfinite, loop=_own_dtype_loop, c_macro="isfinite")
isposinf = ScalarOp("isposinf", 1, np.isposinf, loop=_own_dtype_loop, c_macro="isposinf")
isneginf = ScalarOp("isneginf", 1, np.isneginf, loop=_own_dtype_loop, c_macro="isneginf")
# A real operand is its own real part and conjugate, with a zero imaginary part (numpy's dtypes:
# np.conjugate of bool is int8); a complex one runs perform.
real = ScalarOp("real", 1, _real, loop=_part_loop, c_macro="real")
imag = ScalarOp("imag", 1, _imag, loop=_part_loop, c_macro="imag")
conj = ScalarOp("conj", 1, np.conjugate, c_kinds="iuf", c_macro="conj")

ALL = {op.name: op for op in (tan, sinh, cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh, log2, log10,
                              exp2, deg2rad, rad2deg, reciprocal, arctan2, hypot, logaddexp, trunc,
                              round_half_away_from_zero, complex, isnan, isinf, isfinite, isposinf, isneginf, real,
                              imag, conj)}

mark_builtins(globals())

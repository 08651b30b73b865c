"""The other elementary elementwise functions (numpy's results and dtypes; see scalar_elementary): tan, sinh,
cosh, arcsin, arccos, arctan, arcsinh, arccosh, arctanh, log2, log10, exp2, deg2rad, rad2deg, reciprocal,
arctan2, hypot, logaddexp, trunc, round_half_away_from_zero, iround, isnan, isinf, isfinite, isposinf, isneginf,
nan_to_num, real, imag, conj, complex, complex_from_polar, angle, divmod, largest, smallest; and numpy's and
PyTensor's other names of opkit's elementwise functions (power, square, negative, divide, equal, bitwise_and,
...)."""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise import basic, elemwise_math, logic
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_elementary, scalar_logic
from opkit.core.tensor.types.variable import as_tensor_variable

tan = Elemwise(scalar_elementary.tan)
sinh = Elemwise(scalar_elementary.sinh)
cosh = Elemwise(scalar_elementary.cosh)
arcsin = Elemwise(scalar_elementary.arcsin)
arccos = Elemwise(scalar_elementary.arccos)
arctan = Elemwise(scalar_elementary.arctan)
arcsinh = Elemwise(scalar_elementary.arcsinh)
arccosh = Elemwise(scalar_elementary.arccosh)
arctanh = Elemwise(scalar_elementary.arctanh)
log2 = Elemwise(scalar_elementary.log2)
log10 = Elemwise(scalar_elementary.log10)
exp2 = Elemwise(scalar_elementary.exp2)
deg2rad = Elemwise(scalar_elementary.deg2rad)
rad2deg = Elemwise(scalar_elementary.rad2deg)
reciprocal = Elemwise(scalar_elementary.reciprocal)
arctan2 = Elemwise(scalar_elementary.arctan2)
hypot = Elemwise(scalar_elementary.hypot)
logaddexp = Elemwise(scalar_elementary.logaddexp)
trunc = Elemwise(scalar_elementary.trunc)
round_half_away_from_zero = Elemwise(scalar_elementary.round_half_away_from_zero)
isnan = Elemwise(scalar_elementary.isnan)
isinf = Elemwise(scalar_elementary.isinf)
isfinite = Elemwise(scalar_elementary.isfinite)
isposinf = Elemwise(scalar_elementary.isposinf)
isneginf = Elemwise(scalar_elementary.isneginf)
real = Elemwise(scalar_elementary.real)
imag = Elemwise(scalar_elementary.imag)
conj = Elemwise(scalar_elementary.conj)
conjugate = conj
complex = Elemwise(scalar_elementary.complex)
_to_int64 = Elemwise(scalar_logic.cast("int64"))


def angle(z):
    """Return the argument of `z` elementwise, arctan2(imag(z), real(z)), as np.angle computes it (arctan2(0, z) for a
    real `z`: 0 or pi, in arctan2's dtype of a Python 0 and z)."""
    z = as_tensor_variable(z)
    if np.dtype(z.dtype).kind == "c":
        return arctan2(imag(z), real(z))
    return arctan2(0, z)


def iround(a, mode=None):
    """Return `a` rounded to int64 (PyTensor's iround): halves to even (mode None or "half_to_even", np.round)
    or away from zero ("half_away_from_zero")."""
    if mode in (None, "half_to_even"):
        rounded = elemwise_math.round(a)
    elif mode == "half_away_from_zero":
        rounded = round_half_away_from_zero(a)
    else:
        raise ValueError(f"iround: mode must be 'half_to_even' or 'half_away_from_zero', got {mode!r}")
    return _to_int64(rounded)

# numpy's and PyTensor's names of the same ops.
power = basic.pow
square = basic.sqr
negative = basic.neg
true_divide = divide = basic.true_div
equal = logic.eq
not_equal = logic.neq
less = logic.lt
greater = logic.gt
less_equal = logic.le
greater_equal = logic.ge
bitwise_and = logic.and_
bitwise_or = logic.or_
bitwise_xor = logic.xor
bitwise_not = logic.invert
round_half_to_even = elemwise_math.round  # numpy's round: halves go to the even neighbour


def complex_from_polar(abs, angle):
    """Return the complex numbers of modulus `abs` and argument `angle`: complex(abs cos(angle), abs sin(angle))."""
    return complex(abs * elemwise_math.cos(angle), abs * elemwise_math.sin(angle))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Return `x` with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (np.nan_to_num; the infinities
    default to the largest finite numbers of x's dtype). Integers and bools are returned as they are; a complex
    `x` has each part replaced."""
    x = as_tensor_variable(x)
    kind = np.dtype(x.dtype).kind
    if kind in "biu":
        return x
    if kind == "c":
        return complex(*(nan_to_num(part, nan, posinf, neginf) for part in (real(x), imag(x))))
    largest_finite = float(np.finfo(x.dtype).max)
    x = logic.switch(isnan(x), nan, x)
    x = logic.switch(isposinf(x), largest_finite if posinf is None else posinf, x)
    return logic.switch(isneginf(x), -largest_finite if neginf is None else neginf, x)


def divmod(x, y):
    """Return (x // y, x % y) elementwise, as numpy's divmod (the floored quotient, the remainder of y's sign)."""
    return elemwise_math.int_div(x, y), elemwise_math.mod(x, y)


def largest(*args):
    """Return the elementwise maximum of every argument (PyTensor's largest; NaN wins, as in np.maximum)."""
    return _fold(basic.maximum, args, "largest")


def smallest(*args):
    """Return the elementwise minimum of every argument (PyTensor's smallest; NaN wins, as in np.minimum)."""
    return _fold(elemwise_math.minimum, args, "smallest")


def _fold(op, args, name):
    if not args:
        raise TypeError(f"{name} takes at least one tensor")
    result = as_tensor_variable(args[0])
    for arg in args[1:]:
        result = op(result, arg)
    return result

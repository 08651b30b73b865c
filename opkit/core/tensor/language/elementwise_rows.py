"""The table's elementwise rows: arithmetic, the elementary functions, rounding, comparisons, logic and switch.

Each row is one Elemwise op of opkit.tensor (a scalar op of opkit/core/tensor/scalars/, its C a macro of
opkit/templates/scalar_ops.c.j2, its gradient in opkit/core/tensor/gradients/). Its reference is numpy's ufunc,
whose dtype rule it follows; `dtypes` are the input dtypes numpy accepts (complex ones included where numpy
computes them: opkit's complex tensors run perform, numpy itself).

`extra` holds what tests/tensor/test_language_elementwise.py needs beyond Row's fields:

- "ulp": (float32, float64) the most units in the last place the compiled result may be from the reference,
  measured against numpy's loops on x86-64 with AVX2 (0: the same bits; libm's transcendental functions
  against numpy's own SIMD exp, log, sin, cos, tanh are a few float32 ulps apart). Where numpy runs other
  loops (AVX-512's SVML, another CPU), the test allows opkit.testing's UNMEASURED margin to the inexact rows.
- "simd": the reference runs numpy loops that differ by CPU (libm's functions on AVX2, SVML's on AVX-512):
  elsewhere than AVX2 the test allows each C result UNMEASURED_MARGIN more ulps.
- "int_domains": per input, the (low, high) integer values drawn for integer dtypes (None: the whole range),
  where numpy raises outside them (an integer to a negative integer power).
- "grad_inputs": the inputs verify_grad differentiates (default: every input).
- "grad_domains": per input, the (low, high) verify_grad draws from (None: `grad_domain`).
A row whose function returns several tensors (divmod) has a reference returning as many arrays.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.tensor.language.row import ALL_DTYPES, COMPLEX_DTYPES, Row
from opkit.core.tensor.scalars.scalar_math import _softplus, _sigmoid

TEMPLATE = "opkit/templates/scalar_ops.c.j2"

# The result dtypes, as numpy's ufuncs give them.
SAME = "numpy's promotion of the inputs (integers wrap as numpy's do; bool where numpy keeps it)"
FLOAT = ("numpy's float rule: bool, int8, uint8 -> float16; int16, uint16 -> float32; wider integers -> "
         "float64; a float or complex dtype is kept")
FLOAT_REAL = FLOAT.replace("a float or complex dtype is kept", "a float dtype is kept; complex refused (TypeError)")
KEPT = "the input's dtype (integers and bool unchanged)"
BOOL = "bool"
COMPARE = "bool (compared exactly in numpy's common dtype, int64 with uint64 too)"

ZERO = "zero (piecewise constant)"
NONE = "none: a bool or integer result (zeros for float inputs)"


def accepted(reference, nin, candidates=ALL_DTYPES + COMPLEX_DTYPES):
    """Return the dtypes of `candidates` for which numpy's `reference` computes (`nin` inputs of that dtype)."""
    found = []
    for dtype in candidates:
        try:
            with np.errstate(all="ignore"):
                reference(*[np.zeros(1, dtype)] * nin)
        except TypeError:
            continue
        found.append(dtype)
    return tuple(found)


def c_where(macro, kinds, note=""):
    """The row's `c`: the template macro, the result dtypes with C, and what runs perform."""
    text = f"{TEMPLATE} `{macro}` ({kinds}); float16 and complex: perform (numpy)"
    return f"{text}; {note}" if note else text


FLOATS_C = "float32, float64 results"
ALL_C = "bool, integer, float32, float64 results"
INT_FLOAT_C = "integer, float32, float64 results"


def row(name, reference, nin, dtype_rule, gradient, c, ulp=(0, 0), differentiable=True, grad_domain=(-3.0, 3.0),
        aliases=(), family="elementwise", notes="", **extra):
    return Row(name=name, reference=reference, dtype_rule=dtype_rule, gradient=gradient, c=c, family=family,
               nin=nin, dtypes=accepted(reference, nin), differentiable=differentiable, grad_domain=grad_domain,
               aliases=tuple(aliases), notes=notes, extra={"ulp": tuple(ulp), **extra})


def _float_unary(name, reference, gradient, grad_domain=(-3.0, 3.0), ulp=(0, 0), aliases=(), macro=None, **kw):
    return row(name, reference, 1, FLOAT, gradient, c_where(macro or name, FLOATS_C, "libm"), ulp=ulp,
               grad_domain=grad_domain, aliases=aliases, simd=True, **kw)


def _reciprocal(x):
    x = np.asarray(x)
    return np.true_divide(1, x) if x.dtype.kind in "biu" else np.reciprocal(x)


def _largest(*arrays):
    return functools.reduce(np.maximum, arrays)


def _smallest(*arrays):
    return functools.reduce(np.minimum, arrays)


_largest.__name__ = _largest.__qualname__ = "maximum.reduce"
_smallest.__name__ = _smallest.__qualname__ = "minimum.reduce"
_largest.__module__ = _smallest.__module__ = "numpy"

ARITHMETIC = [
    row("add", np.add, 2, SAME, "g for each input (summed over broadcast axes)", c_where("add", ALL_C)),
    row("sub", np.subtract, 2, SAME, "g, -g", c_where("sub", INT_FLOAT_C)),
    row("mul", np.multiply, 2, SAME, "g * y, g * x", c_where("mul", ALL_C)),
    row("true_div", np.true_divide, 2, FLOAT.replace("bool, int8, uint8 -> float16; int16, uint16 -> float32; "
                                                     "wider integers -> float64", "integers and bool -> float64"),
        "g / y, -g * x / y**2", c_where("true_div", FLOATS_C), grad_domain=(0.5, 3.0),
        aliases=("true_divide", "divide")),
    row("neg", np.negative, 1, SAME, "-g", c_where("neg", INT_FLOAT_C), aliases=("negative",)),
    row("sqr", np.square, 1, "the input's dtype (integers wrap as numpy's do), bool -> int8", "2 * g * x",
        c_where("sqr", INT_FLOAT_C),
        aliases=("square",)),
    row("sqrt", np.sqrt, 1, FLOAT, "g / (2 * sqrt(x))", c_where("sqrt", FLOATS_C, "correctly rounded"),
        grad_domain=(0.5, 3.0)),
    row("pow", np.power, 2, SAME, "g * y * x**(y - 1), g * x**y * log(x)",
        c_where("pow", INT_FLOAT_C, "numpy's fast path for an exponent of -1, 0, 0.5, 1, 2 that is one number"),
        grad_domain=(0.5, 2.0), aliases=("power",), int_domains=(None, (0, 70)), simd=True,
        notes="An integer to a negative integer power raises ValueError, as in numpy."),
    row("maximum", np.maximum, 2, SAME, "g to the larger input (x on ties)", c_where("maximum", ALL_C)),
    row("minimum", np.minimum, 2, SAME, "g to the smaller input (x on ties)", c_where("minimum", ALL_C)),
    row("abs", np.absolute, 1, KEPT + "; complex -> its float", "g * sign(x)", c_where("abs", ALL_C)),
    row("sign", np.sign, 1, KEPT, ZERO, c_where("sign", INT_FLOAT_C)),
    row("reciprocal", _reciprocal, 1, "integers and bool -> float64 (1 / x, as PyTensor's); a float or complex "
        "dtype is kept", "-g / x**2", c_where("reciprocal", FLOATS_C), grad_domain=(0.5, 3.0),
        notes="numpy's reciprocal of an integer truncates 1.0 / x to the integer (undefined in C for 0); opkit's "
              "is the true division, as PyTensor's and Theano's inv."),
    row("int_div", np.floor_divide, 2, SAME, "zeros (PyTensor's IntDiv)", c_where("int_div", INT_FLOAT_C,
        "numpy's npy_divmod for floats"), aliases=("floor_div",)),
    row("mod", np.remainder, 2, SAME, "g, -(x // y) * g", c_where("mod", INT_FLOAT_C, "numpy's npy_divmod"),
        grad_domain=(0.5, 3.0)),
    row("clip", np.clip, 3, SAME, "g inside [lo, hi] to x, where clipped to that bound",
        c_where("clip", ALL_C, "numpy's constant-bounds loop where both bounds are one number"),
        grad_domains=(None, (-2.5, -0.5), (0.5, 2.5))),
    row("divmod", np.divmod, 2, SAME + "; two results", "those of int_div and mod", "a graph: int_div and mod, their C",
        differentiable=False, notes="Returns the pair (x // y, x % y)."),
    row("largest", _largest, 3, SAME, "g to the largest (the first on ties)", "a graph: maximum(maximum(a, b), c), "
        "maximum's C", notes="PyTensor's largest(*args), any number of tensors (NaN wins)."),
    row("smallest", _smallest, 3, SAME, "g to the smallest (the first on ties)", "a graph: minimum(minimum(a, b), "
        "c), minimum's C", notes="PyTensor's smallest(*args), any number of tensors (NaN wins)."),
]

EXPONENTIAL = [
    _float_unary("exp", np.exp, "g * exp(x)", ulp=(2, 0)),
    _float_unary("exp2", np.exp2, "g * exp2(x) * log(2)"),
    _float_unary("expm1", np.expm1, "g * (expm1(x) + 1)"),
    _float_unary("log", np.log, "g / x", grad_domain=(0.5, 3.0), ulp=(3, 0)),
    _float_unary("log2", np.log2, "g / (x * log(2))", grad_domain=(0.5, 3.0)),
    _float_unary("log10", np.log10, "g / (x * log(10))", grad_domain=(0.5, 3.0)),
    _float_unary("log1p", np.log1p, "g / (1 + x)", grad_domain=(-0.5, 3.0)),
    row("logaddexp", np.logaddexp, 2, FLOAT_REAL, "g * sigmoid(x - y), g * sigmoid(y - x)",
        c_where("logaddexp", FLOATS_C, "npy_logaddexp step for step (scalar_math.c)"), simd=True),
    row("sigmoid", _sigmoid, 1, FLOAT_REAL, "g * sigmoid(x) * (1 - sigmoid(x))",
        c_where("sigmoid", FLOATS_C, "the reference's formula"), ulp=(3, 0), aliases=("expit",), simd=True,
        notes="numpy has no sigmoid: 1 / (1 + exp(-x)) for x >= 0, exp(x) / (1 + exp(x)) below, in the result's "
              "dtype (opkit.core.tensor.scalars.scalar_math)."),
    row("softplus", _softplus, 1, FLOAT_REAL, "g * sigmoid(x)", c_where("softplus", FLOATS_C,
        "the reference's formula"), ulp=(2, 0), aliases=("log1pexp",), simd=True,
        notes="numpy has no softplus: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) below, in the result's dtype."),
]

TRIGONOMETRIC = [
    _float_unary("sin", np.sin, "g * cos(x)", ulp=(2, 0)),
    _float_unary("cos", np.cos, "-g * sin(x)", ulp=(1, 0)),
    _float_unary("tan", np.tan, "g / cos(x)**2", grad_domain=(-1.2, 1.2)),
    _float_unary("arcsin", np.arcsin, "g / sqrt(1 - x**2)", grad_domain=(-0.9, 0.9)),
    _float_unary("arccos", np.arccos, "-g / sqrt(1 - x**2)", grad_domain=(-0.9, 0.9)),
    _float_unary("arctan", np.arctan, "g / (1 + x**2)"),
    row("arctan2", np.arctan2, 2, FLOAT_REAL, "g * x / (x**2 + y**2), -g * y / (x**2 + y**2) (arctan2(y, x))",
        c_where("arctan2", FLOATS_C, "libm"), grad_domain=(0.5, 3.0), simd=True),
    row("hypot", np.hypot, 2, FLOAT_REAL, "g * x / hypot(x, y), g * y / hypot(x, y)",
        c_where("hypot", FLOATS_C, "libm"), grad_domain=(0.5, 3.0), simd=True),
    _float_unary("sinh", np.sinh, "g * cosh(x)"),
    _float_unary("cosh", np.cosh, "g * sinh(x)"),
    _float_unary("tanh", np.tanh, "g * (1 - tanh(x)**2)", ulp=(3, 3)),
    _float_unary("arcsinh", np.arcsinh, "g / sqrt(x**2 + 1)"),
    _float_unary("arccosh", np.arccosh, "g / sqrt(x**2 - 1)", grad_domain=(1.2, 3.0)),
    _float_unary("arctanh", np.arctanh, "g / (1 - x**2)", grad_domain=(-0.9, 0.9)),
    row("deg2rad", np.deg2rad, 1, FLOAT_REAL, "g * pi / 180", c_where("deg2rad", FLOATS_C,
        "npy_deg2rad's constant (scalar_math.c)")),
    row("rad2deg", np.rad2deg, 1, FLOAT_REAL, "g * 180 / pi", c_where("rad2deg", FLOATS_C,
        "npy_rad2deg's constant (scalar_math.c)")),
]

def _round_half_away_from_zero(x):
    rounded = np.round(x)
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return rounded
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) == 0.5, whole + np.sign(x), rounded).astype(rounded.dtype)


def _iround(x):
    return np.round(x).astype(np.int64)


_iround.__name__ = _iround.__qualname__ = "round(x).astype(int64)"

ROUNDING = [
    row("floor", np.floor, 1, KEPT, ZERO, c_where("floor", ALL_C)),
    row("ceil", np.ceil, 1, KEPT, ZERO, c_where("ceil", ALL_C)),
    row("trunc", np.trunc, 1, KEPT, ZERO, c_where("trunc", ALL_C)),
    row("round", np.round, 1, KEPT + "; bool -> float16", ZERO, c_where("round", INT_FLOAT_C, "half to even"),
        aliases=("round_half_to_even",)),
    row("round_half_away_from_zero", _round_half_away_from_zero, 1, KEPT + "; bool -> float16", ZERO,
        c_where("round_half_away_from_zero", INT_FLOAT_C, "C's round"),
        notes="numpy has no such function: np.round's dtype, a half goes away from zero."),
    Row(name="iround", reference=_iround, dtype_rule="int64", gradient=NONE, family="elementwise",
        c="a graph: round (or round_half_away_from_zero, mode=) then a cast to int64 (perform from floats: numpy's "
          "astype)", dtypes=ALL_DTYPES, extra={"ulp": (0, 0)},
        notes="PyTensor's iround(a, mode=None); NaN and infinities convert as numpy's astype does."),
]

def _complex(real, imag):
    real, imag = np.broadcast_arrays(np.asarray(real), np.asarray(imag))
    if "c" in (real.dtype.kind, imag.dtype.kind):
        raise TypeError("complex takes real parts")
    floating = np.arctan2(np.empty(0, real.dtype), np.empty(0, imag.dtype)).dtype
    result = np.empty(real.shape, np.complex64 if floating.itemsize <= 4 else np.complex128)
    result.real, result.imag = real, imag
    return result


_complex.__name__ = _complex.__qualname__ = "_complex"


def _complex_from_polar(modulus, angle):
    return _complex(np.multiply(modulus, np.cos(angle)), np.multiply(modulus, np.sin(angle)))

PARTS = [
    row("isnan", np.isnan, 1, BOOL, NONE, c_where("isnan", ALL_C.replace("results", "inputs")),
        differentiable=False),
    row("isinf", np.isinf, 1, BOOL, NONE, c_where("isinf", ALL_C.replace("results", "inputs")),
        differentiable=False),
    row("isfinite", np.isfinite, 1, BOOL, NONE, c_where("isfinite", ALL_C.replace("results", "inputs")),
        differentiable=False),
    row("isposinf", np.isposinf, 1, BOOL, NONE, c_where("isposinf", "bool, integer, float32, float64 inputs"),
        differentiable=False),
    row("isneginf", np.isneginf, 1, BOOL, NONE, c_where("isneginf", "bool, integer, float32, float64 inputs"),
        differentiable=False),
    row("nan_to_num", np.nan_to_num, 1, KEPT, "g where x is finite, zero elsewhere",
        "a graph: switch(isnan(x), nan, ...) with isposinf and isneginf, their C; integers and bools as they are",
        notes="nan_to_num(x, nan=0.0, posinf=None, neginf=None); a complex x has each part replaced."),
    row("real", np.real, 1, KEPT + "; complex -> its float", "g (of a real input)", c_where("real", ALL_C)),
    row("imag", np.imag, 1, KEPT + "; complex -> its float", "zero (of a real input)", c_where("imag", ALL_C)),
    row("conj", np.conjugate, 1, "the input's dtype (integers unchanged), bool -> int8", "g (of a real input)",
        c_where("conj", INT_FLOAT_C),
        aliases=("conjugate",)),
    row("complex", _complex, 2, "complex64 from parts whose float dtype (np.arctan2's) is float32 or narrower, "
        "else complex128; complex parts refused (TypeError)", "not implemented (a complex result)",
        "perform: numpy (a complex result)", differentiable=False,
        notes="PyTensor's complex(real, imag): the parts are set apart (real + 1j * imag would turn 1j * inf into "
              "NaN + inf j)."),
    row("complex_from_polar", _complex_from_polar, 2, "complex64 from float32 (or narrower) parts, else "
        "complex128 (see complex)", "not implemented (a complex result)",
        "a graph: complex(abs * cos(angle), abs * sin(angle)); the parts' C, then perform", differentiable=False,
        ulp=(3, 0), simd=True),
    row("angle", np.angle, 1, "np.angle's: bool -> float64; int8, uint8 -> float16; int16, uint16 -> float32; "
        "wider integers -> float64; a float dtype is kept; complex -> its float", "zero (of a real input)",
        "a graph: arctan2(imag(z), real(z)) (arctan2(0, z) for a real z: bool "
        "-> float64, as numpy's weak 0 makes it), their C", simd=True),
]


def _compare(name, reference, aliases):
    return row(name, reference, 2, COMPARE, NONE, c_where(name, ALL_C.replace("results", "inputs"),
               "scalar_logic.c's exact mixed-sign compare"), differentiable=False, aliases=aliases, family="logic")


def _bitwise(name, reference, nin, aliases):
    return row(name, reference, nin, SAME + "; floats refused (TypeError)", NONE, c_where(name, "bool, integer"),
               differentiable=False, aliases=aliases, family="logic")


def _switch(cond, a, b):
    return np.where(cond, a, b)


_switch.__name__ = _switch.__qualname__ = "where"
_switch.__module__ = "numpy"

LOGIC = [
    _compare("lt", np.less, ("less",)),
    _compare("gt", np.greater, ("greater",)),
    _compare("le", np.less_equal, ("less_equal",)),
    _compare("ge", np.greater_equal, ("greater_equal",)),
    _compare("eq", np.equal, ("equal",)),
    _compare("neq", np.not_equal, ("not_equal",)),
    _bitwise("and_", np.bitwise_and, 2, ("bitwise_and",)),
    _bitwise("or_", np.bitwise_or, 2, ("bitwise_or",)),
    _bitwise("xor", np.bitwise_xor, 2, ("bitwise_xor",)),
    _bitwise("invert", np.invert, 1, ("bitwise_not",)),
    row("switch", _switch, 3, "numpy's promotion of a and b (the condition is any dtype: nonzero is true)",
        "zero for the condition; g where it holds to a, elsewhere to b", c_where("switch", ALL_C),
        family="logic", aliases=("where",)),
]

ROWS = ARITHMETIC + EXPONENTIAL + TRIGONOMETRIC + ROUNDING + PARTS + LOGIC

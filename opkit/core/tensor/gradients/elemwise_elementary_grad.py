"""Derivative rules of the other elementary elementwise ops (merged into elemwise_grad.RULES).

Each rule returns g * d(out)/d(inputs[i]), as in elemwise_grad, and is PyTensor's. trunc is piecewise
constant (zero gradient), as is round_half_away_from_zero; isnan, isinf and isfinite have bool results and need
no rule. real and conj of a real input are the identity, imag of one is 0; complex (a complex result) has none.
"""

from __future__ import annotations

import math

from opkit.core.gradient_types import grad_not_implemented
from opkit.core.tensor.elementwise import basic, elemwise_math
from opkit.core.tensor.elementwise import elemwise_elementary as ee


def _zero(inputs, out, i, g):
    return g * 0


def _identity(inputs, out, i, g):
    return g


def _complex(inputs, out, i, g):
    return grad_not_implemented(ee.complex, i, inputs[i], "opkit differentiates real functions only.")


def _tan(inputs, out, i, g):
    return g / basic.sqr(elemwise_math.cos(inputs[0]))


def _sinh(inputs, out, i, g):
    return g * ee.cosh(inputs[0])


def _cosh(inputs, out, i, g):
    return g * ee.sinh(inputs[0])


def _arcsin(inputs, out, i, g):
    return g / basic.sqrt(1 - basic.sqr(inputs[0]))


def _arccos(inputs, out, i, g):
    return -(g / basic.sqrt(1 - basic.sqr(inputs[0])))


def _arctan(inputs, out, i, g):
    return g / (1 + basic.sqr(inputs[0]))


def _arcsinh(inputs, out, i, g):
    return g / basic.sqrt(basic.sqr(inputs[0]) + 1)


def _arccosh(inputs, out, i, g):
    return g / basic.sqrt(basic.sqr(inputs[0]) - 1)


def _arctanh(inputs, out, i, g):
    return g / (1 - basic.sqr(inputs[0]))


def _log2(inputs, out, i, g):
    return g / (inputs[0] * math.log(2.0))


def _log10(inputs, out, i, g):
    return g / (inputs[0] * math.log(10.0))


def _exp2(inputs, out, i, g):
    return g * out * math.log(2.0)


def _deg2rad(inputs, out, i, g):
    return g * (math.pi / 180.0)


def _rad2deg(inputs, out, i, g):
    return g * (180.0 / math.pi)


def _reciprocal(inputs, out, i, g):
    return -(g / basic.sqr(inputs[0]))


def _arctan2(inputs, out, i, g):
    # arctan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
    y, x = inputs
    r2 = basic.sqr(x) + basic.sqr(y)
    return g * x / r2 if i == 0 else -(g * y) / r2


def _hypot(inputs, out, i, g):
    return g * inputs[i] / out


def _logaddexp(inputs, out, i, g):
    # d/dx log(e^x + e^y) = e^x / (e^x + e^y) = sigmoid(x - y), finite where the exponentials overflow.
    return g * elemwise_math.sigmoid(inputs[i] - inputs[1 - i])


RULES = {
    "tan": _tan, "sinh": _sinh, "cosh": _cosh, "arcsin": _arcsin, "arccos": _arccos, "arctan": _arctan,
    "arcsinh": _arcsinh, "arccosh": _arccosh, "arctanh": _arctanh, "log2": _log2, "log10": _log10, "exp2": _exp2,
    "deg2rad": _deg2rad, "rad2deg": _rad2deg, "reciprocal": _reciprocal, "arctan2": _arctan2, "hypot": _hypot,
    "logaddexp": _logaddexp, "trunc": _zero, "round_half_away_from_zero": _zero, "complex": _complex,
    "real": _identity, "conj": _identity, "imag": _zero,
}

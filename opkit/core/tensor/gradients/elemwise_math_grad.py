"""Derivative rules of the standard elementwise ops (merged into elemwise_grad.RULES).

Each rule returns g * d(out)/d(inputs[i]), as in elemwise_grad. Piecewise
constant functions (sign, floor, ceil, round, int_div) and the bool-valued ops have a
zero gradient; comparisons and logic need no rule (non-float outputs get zeros).
"""

from __future__ import annotations

from opkit.core.tensor.elementwise import basic, elemwise_math, logic
from opkit.core.tensor.shapes.alloc import zeros_like


def _zero(inputs, out, i, g):
    return g * 0


def _abs(inputs, out, i, g):
    return g * elemwise_math.sign(inputs[0])


def _tanh(inputs, out, i, g):
    return g * (1 - basic.sqr(out))


def _sin(inputs, out, i, g):
    return g * elemwise_math.cos(inputs[0])


def _cos(inputs, out, i, g):
    return -(g * elemwise_math.sin(inputs[0]))


def _log1p(inputs, out, i, g):
    return g / (1 + inputs[0])


def _expm1(inputs, out, i, g):
    return g * (out + 1)


def _sigmoid(inputs, out, i, g):
    return g * out * (1 - out)


def _softplus(inputs, out, i, g):
    return g * elemwise_math.sigmoid(inputs[0])


def _minimum(inputs, out, i, g):
    # Ties send the whole gradient to x, as the rule for maximum does.
    x, y = inputs
    picked_x = logic.le(x, y)
    return logic.switch(picked_x, g, 0) if i == 0 else logic.switch(picked_x, 0, g)


def _clip(inputs, out, i, g):
    # PyTensor's rule: x gets g inside [lo, hi] (bounds included), a bound gets g where it clipped.
    x, lo, hi = inputs
    if i == 0:
        inside = logic.and_(logic.ge(x, lo), logic.le(x, hi))
    elif i == 1:
        inside = logic.lt(x, lo)
    else:
        inside = logic.gt(x, hi)
    return logic.switch(inside, g, 0)


def _int_div(inputs, out, i, g):
    # Theano's and PyTensor's IntDiv.grad: zeros (floor division is piecewise constant), not g * 0 (NaN for inf g).
    return zeros_like(g)


def _mod(inputs, out, i, g):
    # Theano's and PyTensor's Mod.grad: x % y = x - (x // y) * y, with x // y held constant.
    x, y = inputs
    return g if i == 0 else -(elemwise_math.int_div(x, y) * g)


def _switch(inputs, out, i, g):
    cond = inputs[0]
    if i == 0:
        return g * 0
    return logic.switch(cond, g, 0) if i == 1 else logic.switch(cond, 0, g)


RULES = {
    "abs": _abs, "sign": _zero, "tanh": _tanh, "sin": _sin, "cos": _cos, "log1p": _log1p, "expm1": _expm1,
    "sigmoid": _sigmoid, "softplus": _softplus, "floor": _zero, "ceil": _zero, "round": _zero,
    "minimum": _minimum, "clip": _clip, "switch": _switch, "int_div": _int_div, "mod": _mod,
}

"""Gradients (L_op) and R_op of the elementwise ops, with broadcasting summed back."""

from __future__ import annotations

from opkit.core.tensor.elementwise import basic
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.reductions import reduction
from opkit.core.tensor.scalars.scalar_math import ge_mask as scalar_ge_mask
from opkit.core.tensor.shapes.alloc import alloc_like, cast, float_zeros_like, is_float_dtype

ge_mask = Elemwise(scalar_ge_mask)


# Each rule returns g * d(out)/d(inputs[i]): the term of input i given the gradient g
# (for grad) or the eval point of input i (for R_op).

def _add(inputs, out, i, g):
    return g


def _sub(inputs, out, i, g):
    return g if i == 0 else -g


def _mul(inputs, out, i, g):
    return g * inputs[1 - i]


def _true_div(inputs, out, i, g):
    x, y = inputs
    return g / y if i == 0 else -(g * x) / basic.sqr(y)


def _neg(inputs, out, i, g):
    return -g


def _exp(inputs, out, i, g):
    return g * out


def _log(inputs, out, i, g):
    return g / inputs[0]


def _sqr(inputs, out, i, g):
    return g * inputs[0] * 2


def _sqrt(inputs, out, i, g):
    return g / (out * 2)


def _maximum(inputs, out, i, g):
    # Ties send the whole gradient to x, as maximum returns x on ties.
    mask = ge_mask(*inputs)
    return g * mask if i == 0 else g * (1 - mask)


def _pow(inputs, out, i, g):
    x, y = inputs
    return g * y * x ** (y - 1) if i == 0 else g * out * basic.log(x)


def _constant(inputs, out, i, g):
    return g * 0


RULES = {
    "add": _add, "sub": _sub, "mul": _mul, "true_div": _true_div, "neg": _neg, "exp": _exp,
    "log": _log, "sqr": _sqr, "sqrt": _sqrt, "maximum": _maximum, "pow": _pow, "ge_mask": _constant,
}


_MISSING = "No derivative rule for this scalar op in opkit.core.tensor.gradients.elemwise_grad.RULES."


def sum_to(term, x):
    """Return `term` summed over the axes along which `x` was broadcast, in `x`'s dtype.

    The leading axes `x` lacks are summed away; axes where `x` has static
    length 1 and `term` may not are summed with keepdims. An integer `x`
    gets float zeros: no integer gradients.
    """
    if not is_float_dtype(x.dtype):
        return float_zeros_like(x)
    leading = term.ndim - x.ndim
    if leading > 0:
        term = reduction.sum(term, axis=list(range(leading)))
    broadcast = [a for a, (s, t) in enumerate(zip(x.type.shape, term.type.shape)) if s == 1 and t != 1]
    if broadcast:
        term = reduction.sum(term, axis=broadcast, keepdims=True)
    return cast(term, x.dtype)


def grad(op, inputs, output_grads):
    """Return the gradient terms of an Elemwise node, one per input."""
    (g,) = output_grads
    out = op(*inputs)
    if not is_float_dtype(out.dtype):
        return [float_zeros_like(x) for x in inputs]
    rule = RULES.get(op.scalar_op.name)
    if rule is None:
        from opkit.core.gradient import grad_not_implemented

        return [grad_not_implemented(op, i, x, _MISSING) for i, x in enumerate(inputs)]
    return [sum_to(rule(inputs, out, i, g), x) for i, x in enumerate(inputs)]


def r_op(op, inputs, eval_points):
    """Return [J @ eval_points] of an Elemwise node (None where no eval point reaches it)."""
    rule = RULES.get(op.scalar_op.name)
    if rule is None:
        raise NotImplementedError(f"{op} has no R_op: {_MISSING}")
    out = op(*inputs)
    terms = [rule(inputs, out, i, point) for i, (x, point) in enumerate(zip(inputs, eval_points))
             if point is not None and is_float_dtype(x.dtype)]
    if not terms or not is_float_dtype(out.dtype):
        return [None]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return [cast(_broadcast_like(total, out), out.dtype)]


def _broadcast_like(term, out):
    """Return `term`, broadcast to the shape of `out` if it may be smaller."""
    if term.ndim == out.ndim and all(t != 1 or o == 1 for t, o in zip(term.type.shape, out.type.shape)):
        return term
    return alloc_like(term, out)


def _merge_standard_rules():
    from opkit.core.tensor.gradients.elemwise_math_grad import RULES as standard

    RULES.update(standard)


_merge_standard_rules()

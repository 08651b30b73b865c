"""Gradients (L_op) and R_op of the elementwise ops, with broadcasting summed back."""

from __future__ import annotations

from opkit.core.builtin_ops import shape_op
from opkit.core.gradient_registry import register
from opkit.core.graph import Variable
from opkit.core.gradient_types import DisconnectedType, NullType
from opkit.core.tensor.elementwise import basic
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.reductions import reduction
from opkit.core.tensor.scalars.scalar_math import ge_mask as scalar_ge_mask
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op
from opkit.core.tensor.shapes.alloc import alloc_like, cast, float_zeros_like, is_float_dtype, ones_like
from opkit.core.tensor.shapes.sum_to_shape import sum_to_shape
from opkit.core.tensor.types.variable import as_tensor_variable
from opkit.core.gradient_types import grad_not_implemented
from opkit.core.tensor.gradients.elemwise_elementary_grad import RULES as elementary
from opkit.core.tensor.gradients.elemwise_math_grad import RULES as standard
from opkit.core.tensor.gradients.elemwise_special_grad import RULES as special

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


def sum_to(term, x, others=None):
    """Return `term` summed over the axes along which `x` was broadcast, in `x`'s dtype.

    The leading axes `x` lacks are summed away; axes where `x` has static
    length 1 and `term` may not are summed with keepdims. An axis where `x`'s
    static length is unknown may have been broadcast when the graph ran (numpy
    broadcasts a length 1): SumToShape sums those to x's run-time shape, unless
    `others` (the other inputs of the elementwise op x went into) prove that no
    axis could be broadcast. An integer `x` gets float zeros: no integer gradients.
    """
    if not is_float_dtype(x.dtype):
        return float_zeros_like(x)
    leading = term.ndim - x.ndim
    if leading > 0:
        term = reduction.sum(term, axis=list(range(leading)))
    broadcast = [a for a, (s, t) in enumerate(zip(x.type.shape, term.type.shape)) if s == 1 and t != 1]
    if broadcast:
        term = reduction.sum(term, axis=broadcast, keepdims=True)
    if _may_broadcast_at_run_time(x, term, others):
        term = sum_to_shape(term, shape_op(x))
    return cast(term, x.dtype)


def _may_broadcast_at_run_time(x, term, others):
    """Whether some axis of `x` of unknown static length may have been broadcast to `term`'s length.

    An axis is broadcast only where another input is longer: with `others` given, an axis along which
    every other input has static length 1, no axis at all, or x's run-time shape (_same_shape_as) was
    not broadcast.
    """
    for axis, (s, t) in enumerate(zip(x.type.shape, term.type.shape)):
        if s is not None or t == 1:
            continue
        if others is None:
            return True
        back = x.ndim - axis  # the axis counted from the last, as numpy aligns shapes
        if any(o.ndim >= back and o.type.shape[o.ndim - back] != 1 and _shape_root(o) is not _shape_root(x)
               for o in others):
            return True
    return False


def _shape_root(v, depth=32):
    """A variable with `v`'s run-time shape: through elementwise nodes whose inputs that are not all length 1
    share one root of v's ndim (x * x + x / 2 has x's shape), else `v` itself."""
    node = v.owner
    if depth == 0 or node is None or not isinstance(node.op, Elemwise):
        return v
    roots = {id(r): r for r in (_shape_root(i, depth - 1) for i in node.inputs
                                if any(s != 1 for s in i.type.shape))}
    if len(roots) == 1:
        (root,) = roots.values()
        if root.ndim == v.ndim:
            return root
    return v


def _user_grad(op, inputs, out, g):
    """The gradient terms of a user scalar op (user_scalar.ScalarOp): its own L_op, grad or pullback.

    It is called on the tensor variables: the scalar functions it uses (opkit.scalar's, the op
    itself) build Elemwise nodes there. Each term is broadcast back to its input's shape.
    """
    terms = op.scalar_op.L_op(list(inputs), [out], [g])
    if terms is None or isinstance(terms, Variable):
        raise TypeError(f"{op.scalar_op}.grad returned {terms!r}; it must return a list with one term per input")
    terms = list(terms)
    if len(terms) != len(inputs):
        raise ValueError(f"{op.scalar_op}.grad returned {len(terms)} gradient terms for {len(inputs)} inputs")
    fitted = []
    for term, x in zip(terms, inputs):
        if isinstance(term, Variable) and isinstance(term.type, (NullType, DisconnectedType)):
            fitted.append(term)
            continue
        term = as_tensor_variable(term)
        if term.ndim < out.ndim or any(t == 1 and o != 1 for t, o in zip(term.type.shape, out.type.shape)):
            term = alloc_like(term, out)
        fitted.append(sum_to(term, x, _others(inputs, x)))
    return fitted


@register(Elemwise, "grad")
def grad(op, inputs, output_grads):
    """Return the gradient terms of an Elemwise node, one per input."""
    (g,) = output_grads
    out = op(*inputs)
    if not is_float_dtype(out.dtype):
        return [float_zeros_like(x) for x in inputs]
    if is_user_scalar_op(op.scalar_op):
        return _user_grad(op, inputs, out, g)
    rule = RULES.get(op.scalar_op.name)
    if rule is None:
        return [grad_not_implemented(op, i, x, _MISSING) for i, x in enumerate(inputs)]
    return [_fitted(rule(inputs, out, i, g), x, inputs) for i, x in enumerate(inputs)]


def _fitted(term, x, inputs):
    """A rule's term summed back to `x`'s shape; a NullType term (no gradient for that input) as it is."""
    if isinstance(term, Variable) and isinstance(term.type, (NullType, DisconnectedType)):
        return term
    return sum_to(term, x, _others(inputs, x))


def _others(inputs, x):
    """The inputs of an elementwise node other than `x` (by identity): those `x` may have been broadcast to."""
    return [o for o in inputs if o is not x]


@register(Elemwise, "R_op")
def r_op(op, inputs, eval_points):
    """Return [J @ eval_points] of an Elemwise node (None where no eval point reaches it)."""
    out = op(*inputs)
    rule = _user_r_rule(op, inputs, out) if is_user_scalar_op(op.scalar_op) else RULES.get(op.scalar_op.name)
    if rule is None:
        why = "its scalar op's gradient is not defined" if is_user_scalar_op(op.scalar_op) else _MISSING
        raise NotImplementedError(f"{op} has no R_op: {why}")
    terms = [rule(inputs, out, i, point) for i, (x, point) in enumerate(zip(inputs, eval_points))
             if point is not None and is_float_dtype(x.dtype)]
    if any(isinstance(t, Variable) and isinstance(t.type, (NullType, DisconnectedType)) for t in terms):
        raise NotImplementedError(f"{op} has no R_op for an input whose gradient is not defined")
    if not terms or not is_float_dtype(out.dtype):
        return [None]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return [cast(_broadcast_like(total, out), out.dtype)]


def _user_r_rule(op, inputs, out):
    """A user scalar op's R_op rule, as PyTensor's Elemwise makes it: its L_op with ones for the output
    gradient gives each partial derivative, multiplied by its eval point. None where one is not defined."""
    if not is_float_dtype(out.dtype):
        return lambda inputs, out, i, point: point * 0
    partials = op.scalar_op.L_op(list(inputs), [out], [ones_like(out)])
    if any(isinstance(p, Variable) and isinstance(p.type, (NullType, DisconnectedType)) for p in partials):
        return None
    return lambda inputs, out, i, point: partials[i] * point


def _broadcast_like(term, out):
    """Return `term`, broadcast to the shape of `out` if it may be smaller, statically or when the graph runs
    (an eval point of length 1 where the type does not say so, broadcast by the node)."""
    if term.ndim == out.ndim and (_covers(term, out) or all(
            o == 1 or (t == o and t is not None) for t, o in zip(term.type.shape, out.type.shape))):
        return term
    return alloc_like(term, out)


def _covers(term, out):
    """Whether `term` is at least as long as `out` along every axis when the graph runs: an elementwise result
    of `out` itself, of out's root (_shape_root), or of every input of out's node that is not all length 1."""
    sources, pending = set(), [(term, 32)]
    while pending:
        v, depth = pending.pop()
        sources.add(id(v))
        if depth and v.owner is not None and isinstance(v.owner.op, Elemwise):
            pending.extend((i, depth - 1) for i in v.owner.inputs)
    if id(out) in sources or id(_shape_root(out)) in sources:
        return True
    return out.owner is not None and all(id(i) in sources for i in out.owner.inputs
                                         if any(s != 1 for s in i.type.shape))


def _merge_standard_rules():
    RULES.update(standard)
    RULES.update(elementary)
    RULES.update(special)


_merge_standard_rules()

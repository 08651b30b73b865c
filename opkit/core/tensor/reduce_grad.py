"""Gradients of the reductions: Sum and Dot."""

from __future__ import annotations

from opkit.core.tensor.alloc import alloc_like, cast, expand_dims, float_zeros_like, is_float_dtype, transpose


def _like_input(term, x):
    """Return `term` in the dtype of a float input `x` (integer inputs keep a float term)."""
    return cast(term, x.dtype) if is_float_dtype(x.dtype) else term


def sum_grad(op, inputs, output_grads):
    """Return the gradient of Sum: the output gradient broadcast back over the summed axes."""
    (x,), (g,) = inputs, output_grads
    if not is_float_dtype(x.dtype):
        return [float_zeros_like(x)]
    axes = op._axes(x.ndim)
    if axes and not op.keepdims:
        g = expand_dims(g, axes)
    return [_like_input(alloc_like(g, x), x)]


def dot_grad(op, inputs, output_grads):
    """Return the gradients of Dot for each vector/matrix combination.

    An integer operand of a float product gets its real gradient: the
    product is defined at y + eps, so the derivative exists.
    """
    from opkit.core.tensor.basic import dot

    (x, y), (g,) = inputs, output_grads
    if x.ndim == 1 and y.ndim == 1:
        gx, gy = g * y, g * x
    elif x.ndim == 2 and y.ndim == 1:
        gx, gy = dot(expand_dims(g, [1]), expand_dims(y, [0])), dot(g, x)
    elif x.ndim == 1 and y.ndim == 2:
        gx, gy = dot(y, g), dot(expand_dims(x, [1]), expand_dims(g, [0]))
    else:
        gx, gy = dot(g, transpose(y)), dot(transpose(x), g)
    return [_like_input(gx, x), _like_input(gy, y)]

"""Gradients of the reductions: sum, prod, max, min, mean, and of Dot."""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import register
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import Dot
from opkit.core.tensor.reductions.reduction import Reduce
from opkit.core.tensor.shapes.alloc import (alloc_like, cast, expand_dims, float_zeros_like, is_float_dtype, shape_dims,
                                    transpose)
from opkit.core.tensor.types.shape_checks import broadcast_into_checks, broadcast_into_error, check_chain
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import constant
from opkit.core.tensor.elementwise.basic import mul, true_div
from opkit.core.tensor.elementwise.basic import mul
from opkit.core.tensor.elementwise.logic import eq
from opkit.core.tensor.elementwise.basic import dot


def _like_input(term, x):
    """Return `term` in the dtype of a float input `x` (integer inputs keep a float term)."""
    return cast(term, x.dtype) if is_float_dtype(x.dtype) else term


def _keep(op, x, value):
    """Return `value` (shaped like op's output) with the reduced axes back as length 1."""
    axes = op._axes(x.ndim)
    return expand_dims(value, axes) if axes and not op.keepdims else value


def sum_grad(op, inputs, output_grads):
    """Return the gradient of Sum: the output gradient broadcast back over the summed axes."""
    (x,), (g,) = inputs, output_grads
    if not is_float_dtype(x.dtype):
        return [float_zeros_like(x)]
    return [_like_input(alloc_like(_keep(op, x, g), x), x)]


def reduce_grad(op, inputs, output, output_grads):
    """Return the gradient of a Reduce node of any kind (integer inputs: a zero gradient)."""
    (x,), (g,) = inputs, output_grads
    if not is_float_dtype(x.dtype):
        return [float_zeros_like(x)]
    if op.kind == "sum":
        return sum_grad(op, inputs, output_grads)
    if op.kind == "mean":
        dims = shape_dims(x)
        count = constant(np.ones((), dtype=x.dtype))
        for axis in op._axes(x.ndim):
            count = mul(count, cast(dims[axis], x.dtype))
        return [true_div(sum_grad(op, inputs, output_grads)[0], count)]
    if op.kind == "prod":
        return [ProdGrad(op._axes(x.ndim))(x, _keep(op, x, g))]
    # max/min, as PyTensor: the gradient goes to every position equal to the extremum (ties all get it).
    return [mul(eq(x, _keep(op, x, output)), _keep(op, x, g))]


class ProdGrad(Op):
    """The gradient of prod over `axes`: g times the product of the other terms (exact with zeros).

    The product of the others is the exclusive prefix product times the
    exclusive suffix product, so a zero term never divides anything.
    """

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = tuple(axes)

    def make_node(self, x, g):
        return Apply(self, [x, g], [TensorType(x.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, g = inputs
        broadcast_into_error(np.shape(g), x.shape)
        kept = [a for a in range(x.ndim) if a not in self.axes]
        order = kept + list(self.axes)
        moved = np.transpose(x, order)
        # the reduced length spelled out: numpy cannot deduce a -1 in an empty array
        flat = moved.reshape(moved.shape[:len(kept)] + (int(np.prod([x.shape[a] for a in self.axes])),))
        if flat.shape[-1] == 0:
            output_storage[0][0] = np.zeros(x.shape, dtype=x.dtype)
            return
        ones = np.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
        with np.errstate(all="ignore"):
            before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
            after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
            others = np.transpose((before * after).reshape(moved.shape), np.argsort(order))
            output_storage[0][0] = np.asarray(others * g, dtype=x.dtype)

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return [check_chain(broadcast_into_checks(input_shapes[1], input_shapes[0]))]


@register(Dot, "grad")
def dot_grad(op, inputs, output_grads):
    """Return the gradients of Dot for each vector/matrix combination.

    An integer operand of a float product gets its real gradient: the
    product is defined at y + eps, so the derivative exists.
    """
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


@register(Reduce, "grad")
def _grad(op, inputs, output_grads):
    return reduce_grad(op, inputs, op(*inputs), output_grads)


@register(Reduce, "L_op")
def _l_op(op, inputs, outputs, output_grads):
    return reduce_grad(op, inputs, outputs[0], output_grads)

"""Gradients of the shape ops that broadcast or reorder (Alloc, Fill, DimShuffle, IncSubtensor): the axes a
value was broadcast along are summed back (sum_to, a reduction), so the rules live in this last layer."""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import register
from opkit.core.gradient_types import disconnected_type
from opkit.core.tensor.gradients.elemwise_grad import sum_to
from opkit.core.tensor.reductions.reduction import sum
from opkit.core.tensor.shapes.alloc import Alloc, DimShuffle, cast, float_zeros_like, is_float_dtype
from opkit.core.tensor.shapes.fill import Fill
from opkit.core.tensor.shapes.inc_subtensor import IncSubtensor
from opkit.core.tensor.shapes.subtensor import Subtensor
from opkit.core.tensor.types.variable import constant


@register(Alloc, "grad")
def alloc_grad(op, inputs, output_grads):
    return [sum_to(output_grads[0], inputs[0])] + [disconnected_type() for _ in inputs[1:]]


@register(Fill, "grad")
def fill_grad(op, inputs, output_grads):
    return [disconnected_type(), sum_to(output_grads[0], inputs[1])]


@register(DimShuffle, "grad")
def dimshuffle_grad(op, inputs, output_grads):
    x, g = inputs[0], output_grads[0]
    inserted = [i for i, a in enumerate(op.new_order) if a == "x"]
    if inserted:
        g = sum(g, axis=inserted)
    kept = [a for a in op.new_order if a != "x"]
    inverse = [kept.index(axis) for axis in range(x.ndim)]
    if inverse != list(range(x.ndim)):
        g = DimShuffle(inverse)(g)
    return [cast(g, x.dtype) if is_float_dtype(x.dtype) else float_zeros_like(x)]


@register(IncSubtensor, "grad")
def inc_subtensor_grad(op, inputs, output_grads):
    x, y, *index_inputs = inputs
    g, = output_grads
    indices = [disconnected_type() for _ in index_inputs]
    if not is_float_dtype(x.dtype):  # an integer result carries no gradient
        return [float_zeros_like(x), float_zeros_like(y) if not is_float_dtype(y.dtype) else y.zeros_like()] \
            + indices
    if op.set_instead_of_inc:
        g_x = IncSubtensor(op.idx_list, set_instead_of_inc=True)(g, constant(np.zeros((), g.dtype)), *index_inputs)
    else:
        g_x = g
    return [g_x, _gradient_of_y(Subtensor(op.idx_list)(g, *index_inputs), y)] + indices


def _gradient_of_y(selected, y):
    """g[index] summed over the axes y was broadcast along, in y's dtype (float zeros for an integer y).

    Axes where y's static length is 1 are summed (as PyTensor does); an axis of unknown static
    length that numpy broadcast when the graph ran (y's length 1 into a longer x[index]) is summed
    then, by sum_to's SumToShape.
    """
    return sum_to(selected, y)

"""Gradients of advanced indexing and its writes, as PyTensor defines them.

- x[idx]: the output gradient added into zeros shaped like x at idx (repeated indices accumulate);
- x with x[idx] incremented by y: x gets the whole gradient, y gets g[idx] summed over the axes y was
  broadcast along; for a set, x gets the gradient with zeros written at idx (as PyTensor, a y entry written
  several times gets the gradient of each of its positions).
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import register
from opkit.core.gradient_types import disconnected_type
from opkit.core.tensor.gradients.elemwise_grad import sum_to
from opkit.core.tensor.shapes.advanced_inc_subtensor import AdvancedIncSubtensor, AdvancedIncSubtensor1
from opkit.core.tensor.shapes.advanced_subtensor import AdvancedSubtensor, AdvancedSubtensor1
from opkit.core.tensor.shapes.alloc import float_zeros_like, is_float_dtype
from opkit.core.tensor.types.variable import constant


@register(AdvancedSubtensor1, "grad")
def advanced_subtensor1_grad(op, inputs, output_grads):
    x, idx = inputs
    if not is_float_dtype(x.dtype):
        return [float_zeros_like(x), disconnected_type()]
    return [AdvancedIncSubtensor1()(x.zeros_like(), output_grads[0], idx), disconnected_type()]


@register(AdvancedSubtensor, "grad")
def advanced_subtensor_grad(op, inputs, output_grads):
    x, *index_inputs = inputs
    indices = [disconnected_type() for _ in index_inputs]
    if not is_float_dtype(x.dtype):
        return [float_zeros_like(x)] + indices
    return [AdvancedIncSubtensor(op.idx_list)(x.zeros_like(), output_grads[0], *index_inputs)] + indices


def _write_grads(op, inputs, g, select, write_zeros):
    x, y, *index_inputs = inputs
    indices = [disconnected_type() for _ in index_inputs]
    if not is_float_dtype(x.dtype):  # an integer result carries no gradient
        return [float_zeros_like(x), float_zeros_like(y) if not is_float_dtype(y.dtype) else y.zeros_like()] \
            + indices
    g_x = write_zeros(g, constant(np.zeros((), g.dtype)), *index_inputs) if op.set_instead_of_inc else g
    return [g_x, sum_to(select(g, *index_inputs), y)] + indices


@register(AdvancedIncSubtensor1, "grad")
def advanced_inc_subtensor1_grad(op, inputs, output_grads):
    return _write_grads(op, inputs, output_grads[0], AdvancedSubtensor1(),
                        AdvancedIncSubtensor1(set_instead_of_inc=True))


@register(AdvancedIncSubtensor, "grad")
def advanced_inc_subtensor_grad(op, inputs, output_grads):
    return _write_grads(op, inputs, output_grads[0], AdvancedSubtensor(op.idx_list),
                        AdvancedIncSubtensor(op.idx_list, set_instead_of_inc=True))

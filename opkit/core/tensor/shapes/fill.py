"""Fill: a value broadcast to the shape of a model tensor, keeping the model in the graph.

What gradients start from (PyTensor's ``fill(cost, 1)``): the seed of ``grad(s * 3, s)``
must depend on the cost, or a function of ``s`` computing it would not use ``s``
(and a scalar cost has no shape to hold the link). FAST_RUN rewrites it into an
Alloc over the inferred shape (``rewrites.fill_to_alloc``), so the model is not
computed just for its shape.
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import broadcast_copy
from opkit.core.tensor.types.shape_checks import broadcast_into_checks, check_chain
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


class Fill(Op):
    """``fill(model, value)``: `value` (in its dtype) broadcast to the shape of `model`, as a new array."""

    __props__ = ()

    def make_node(self, model, value):
        model, value = as_tensor_variable(model), as_tensor_variable(value)
        if value.ndim > model.ndim:
            raise ValueError(f"fill: the value {value} has {value.ndim} dimensions, more than the model {model} "
                             f"({model.ndim})")
        return Apply(self, [model, value], [TensorType(value.dtype, model.type.shape)()])

    def perform(self, node, inputs, output_storage):
        model, value = inputs
        output_storage[0][0] = broadcast_copy(value, np.shape(model), node.outputs[0].dtype, "fill")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return [check_chain(broadcast_into_checks(input_shapes[1], input_shapes[0]))]

    def connection_pattern(self, node):
        return [[False], [True]]

    def do_constant_folding(self, node):
        return False  # as Alloc: folding would keep a possibly large array in the graph

    grad = registered("grad")  # it sums broadcast axes back: gradients/shape_grad.py

    def R_op(self, inputs, eval_points):
        return [None if eval_points[1] is None else self(inputs[0], eval_points[1])]

    def __str__(self):
        return "fill"


_fill = Fill()


def fill(model, value):
    """Return `value` broadcast to the shape of `model` (the result depends on `model` in the graph)."""
    return _fill(model, value)


def fill_like(model, number, dtype):
    """Return `number` in `dtype` broadcast to the shape of `model`: ones_like/zeros_like that keep the link."""
    return fill(model, constant(np.asarray(number, dtype=dtype)))

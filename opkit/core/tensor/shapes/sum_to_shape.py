"""SumToShape: a gradient summed back, when the graph runs, to the shape of the input numpy broadcast.

opkit's elementwise ops broadcast as numpy does: an axis of length 1 when the graph runs is broadcast
even where the input's type does not say its length is 1 (static length None). The gradient of such an
input has the output's length along that axis; SumToShape sums it (keepdims) over each axis where the
target length is 1 and the gradient's is not. Where no axis was broadcast it returns its input itself
(view_map), so a call where nothing broadcast copies nothing. C: sum_to_shape.c.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape_i
from opkit.core.c_source import SectionOp
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Constant
from opkit.core.tensor.shapes.alloc import alloc_like
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


def _fit_error(shape, target):
    return ValueError(f"sum_to_shape: cannot sum an array of shape {tuple(shape)} to the shape {tuple(target)}: "
                      "each target length must be the array's or 1")


def sum_to_shape_value(g, target, dtype):
    """numpy's result of SumToShape: `g` summed (keepdims) along each axis where target is 1 and g's length is not."""
    target = tuple(int(t) for t in target)
    if len(target) != g.ndim:
        raise ValueError(f"sum_to_shape: the shape vector has {len(target)} entries for a {g.ndim}-d array")
    if any(have != want and want != 1 for have, want in zip(g.shape, target)):
        raise _fit_error(g.shape, target)
    axes = tuple(axis for axis, (have, want) in enumerate(zip(g.shape, target)) if have != want)
    if not axes:
        return g
    return np.add.reduce(g, axis=axes, dtype=dtype, keepdims=True)


class SumToShape(SectionOp):
    """g summed to the int64 vector `shape` along the axes where shape says 1 and g's length is not (keepdims).

    Every other length of `shape` must be g's. The result is g itself where nothing is summed.
    """

    __props__ = ()
    view_map = {0: [0]}
    section_files = ("sum_to_shape.c",)

    def make_node(self, g, shape):
        g, shape = as_tensor_variable(g), as_tensor_variable(shape)
        if shape.ndim != 1 or np.dtype(shape.dtype) != np.dtype("int64") or shape.type.shape[0] not in (None, g.ndim):
            raise TypeError(f"SumToShape: the shape must be an int64 vector of {g.ndim} entries (g's "
                            f"dimensions), got {shape} of type {shape.type}")
        static = [1 if s == 1 else None for s in g.type.shape]  # any other length may be summed to 1
        if isinstance(shape, Constant):
            values = [int(s) for s in shape.data]
            if any(s is not None and s != v and v != 1 for s, v in zip(g.type.shape, values)):
                raise _fit_error(g.type.shape, values)
            static = values
        return Apply(self, [g, shape], [TensorType(g.dtype, tuple(static))()])

    def perform(self, node, inputs, output_storage):
        g, shape = inputs
        output_storage[0][0] = sum_to_shape_value(g, shape, np.dtype(node.outputs[0].dtype))

    def infer_shape(self, node, input_shapes):
        static = node.outputs[0].type.shape
        return [tuple(s if s is not None else node.inputs[1][i] for i, s in enumerate(static))]

    def shape_checks(self, node, input_shapes):
        g, shape = node.inputs
        checks = []
        if shape.type.shape[0] is None:
            length = Shape_i(0)(shape)
            checks.append(("ValueError", f"sum_to_shape: the shape vector has {{}} entries for a {g.ndim}-d array",
                           "eq", length, g.ndim, (length,)))
        target = [shape[i] for i in range(g.ndim)]
        template = (f"sum_to_shape: cannot sum an array of shape {shape_template(g.ndim)} to the shape "
                    f"{shape_template(g.ndim)}: each target length must be the array's or 1")
        args = (*input_shapes[0], *target)
        checks += [("ValueError", template, "broadcasts", t, d, args) for t, d in zip(target, input_shapes[0])]
        return [check_chain(checks)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return [alloc_like(output_grads[0], inputs[0]), disconnected_type()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]

    def c_code_cache_version(self):
        return (1, *super().c_code_cache_version())


sum_to_shape = SumToShape()

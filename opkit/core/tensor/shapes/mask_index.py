"""Boolean masks in an index: x[mask] is x[mask.nonzero()], as numpy reads it.

A k-d mask on axes a..a+k-1 of x stands for k integer arrays (the coordinates of its True entries in C
order); their length is known only when the graph runs. MaskNonzero computes them after numpy's check that
the mask's shape is the shape of the axes it indexes.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import shape_op
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Constant
from opkit.core.op import Op
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


def mask_mismatch(first_axis, dims, mask_shape):
    """numpy's IndexError for a mask whose shape is not the indexed axes' `dims`, or None when it fits."""
    for k, (n, m) in enumerate(zip(dims, mask_shape)):
        if n != m:
            return IndexError(f"boolean index did not match indexed array along axis {first_axis + k}; size of "
                              f"axis is {n} but size of corresponding boolean axis is {m}")
    return None


class MaskNonzero(Op):
    """The int64 coordinates of a boolean mask's True entries (numpy.nonzero), one vector per mask axis.

    Inputs: the mask, then the lengths of the axes of x it indexes (from `first_axis` on), which its shape
    must equal (numpy's IndexError otherwise).
    """

    __props__ = ("first_axis",)

    def __init__(self, first_axis):
        self.first_axis = int(first_axis)

    def make_node(self, mask, *dims):
        mask = as_tensor_variable(mask)
        if mask.dtype != "bool":
            raise TypeError(f"{self} takes a boolean mask, got {mask} of dtype {mask.dtype}")
        dims = [as_tensor_variable(d) for d in dims]
        if len(dims) != mask.ndim:
            raise ValueError(f"{self}: a {mask.ndim}-d mask needs {mask.ndim} axis lengths, got {len(dims)}")
        known = [getattr(d, "data", None) for d in dims]
        mask_shape = np.shape(mask.data) if isinstance(mask, Constant) else mask.type.shape
        if all(k is not None for k in known) and None not in mask_shape:
            error = mask_mismatch(self.first_axis, [int(k) for k in known], mask_shape)
            if error is not None:
                raise error
        return Apply(self, [mask, *dims], [TensorType("int64", (None,))() for _ in range(mask.ndim)])

    def perform(self, node, inputs, output_storage):
        mask, *dims = inputs
        error = mask_mismatch(self.first_axis, [int(d) for d in dims], mask.shape)
        if error is not None:
            raise error
        for cell, coordinates in zip(output_storage, np.nonzero(mask)):
            cell[0] = coordinates.astype(np.int64)

    def connection_pattern(self, node):
        return [[False] * len(node.outputs) for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected_type() for _ in inputs]

    def __str__(self):
        return f"MaskNonzero{{axis={self.first_axis}}}"


def mask_coordinates(mask, x, first_axis):
    """The integer arrays that stand for the boolean `mask` on the axes of x from `first_axis` on."""
    mask = as_tensor_variable(mask)
    if mask.ndim == 0:
        raise IndexError("a 0-d boolean index (x[True], x[np.bool_(False)]) is not supported; use x[None] to add "
                         "an axis, or opkit.tensor.where for a choice")
    if first_axis + mask.ndim > x.ndim:
        raise IndexError(f"too many indices: the {mask.ndim}-d boolean mask from axis {first_axis} goes beyond "
                         f"the {x.ndim}-d tensor {x}")
    sizes = shape_op(x)
    dims = [x.type.shape[first_axis + k] if x.type.shape[first_axis + k] is not None else sizes[first_axis + k]
            for k in range(mask.ndim)]
    outputs = MaskNonzero(first_axis)(mask, *dims)
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

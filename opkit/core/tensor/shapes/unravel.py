"""unravel_index and ravel_multi_index: numpy's flat-index arithmetic (perform: numpy, as PyTensor's; no C)."""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Variable
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.axes import broadcast_shape
from opkit.core.tensor.shapes.reshape import _shape_vector
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


def _order(order, what):
    if order not in ("C", "F"):
        raise ValueError(f"{what}: order must be 'C' or 'F', got {order!r}")
    return order


def integer_tensor(value, what, name):
    """`value` as a tensor of an integer dtype, or a TypeError naming `what`'s argument `name`."""
    value = as_tensor_variable(value)
    if np.dtype(value.dtype).kind not in "iu":
        raise TypeError(f"{what}: {name} must be integers, got {value} of type {value.type}")
    return value


def _dims_vector(dims, what):
    """`dims` (ints, int scalars, or an int vector) as an int64 vector of known length."""
    if isinstance(dims, (list, tuple)) and any(isinstance(d, Variable) for d in dims):
        dims = _shape_vector([integer_tensor(d, what, "dims") for d in dims])
    dims = cast(integer_tensor(dims, what, "dims"), "int64")
    if dims.ndim != 1 or dims.type.shape[0] is None and getattr(dims, "data", None) is None:
        raise ValueError(f"{what}: dims must be a vector of known length (a tuple of ints, or specify_shape it)")
    return dims


def _length(dims):
    return dims.type.shape[0] if dims.type.shape[0] is not None else len(dims.data)


class UnravelIndex(Op):
    """numpy.unravel_index(indices, dims, order): one int64 coordinate array per entry of dims."""

    __props__ = ("order",)

    def __init__(self, order="C"):
        self.order = _order(order, "unravel_index")

    def make_node(self, indices, dims):
        indices, dims = integer_tensor(indices, "unravel_index", "indices"), _dims_vector(dims, "unravel_index")
        outputs = [TensorType("int64", indices.type.shape)() for _ in range(_length(dims))]
        return Apply(self, [indices, dims], outputs)

    def perform(self, node, inputs, output_storage):
        indices, dims = inputs
        for cell, coordinates in zip(output_storage, np.unravel_index(indices, tuple(dims), order=self.order)):
            cell[0] = np.asarray(coordinates, dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]] * len(node.outputs)

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # an index out of bounds: numpy's ValueError

    def connection_pattern(self, node):
        return [[False] * len(node.outputs) for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected_type() for _ in inputs]


class RavelMultiIndex(Op):
    """numpy.ravel_multi_index(multi_index, dims, mode, order): int64 flat indices of coordinate arrays."""

    __props__ = ("mode", "order")

    def __init__(self, mode="raise", order="C"):
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
        self.mode, self.order = mode, _order(order, "ravel_multi_index")

    def make_node(self, *inputs):
        *multi_index, dims = inputs
        multi_index = [integer_tensor(i, "ravel_multi_index", "multi_index") for i in multi_index]
        dims = _dims_vector(dims, "ravel_multi_index")
        if len(multi_index) != _length(dims):
            raise ValueError(f"ravel_multi_index: {len(multi_index)} coordinate arrays for {_length(dims)} dims")
        ndim = max((i.ndim for i in multi_index), default=0)
        return Apply(self, [*multi_index, dims], [TensorType("int64", (None,) * ndim)()])

    def perform(self, node, inputs, output_storage):
        *multi_index, dims = inputs
        flat = np.ravel_multi_index(tuple(multi_index), tuple(dims), mode=self.mode, order=self.order)
        output_storage[0][0] = np.asarray(flat, dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [tuple(broadcast_shape(*node.inputs[:-1]))]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # coordinates out of bounds (mode 'raise'), shapes that do not broadcast

    def connection_pattern(self, node):
        return [[False] for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected_type() for _ in inputs]


def unravel_index(indices, dims, order="C"):
    """Return numpy.unravel_index(indices, dims, order): a tuple of int64 coordinate arrays."""
    outputs = UnravelIndex(order)(indices, dims)
    return tuple(outputs) if isinstance(outputs, (list, tuple)) else (outputs,)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Return numpy.ravel_multi_index(multi_index, dims, mode, order): int64 flat indices."""
    if not isinstance(multi_index, (list, tuple)):
        raise TypeError(f"ravel_multi_index: multi_index must be a tuple of integer arrays, got {multi_index!r}")
    return RavelMultiIndex(mode, order)(*multi_index, dims)


__all__ = ["RavelMultiIndex", "UnravelIndex", "ravel_multi_index", "unravel_index"]

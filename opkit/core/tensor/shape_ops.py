"""Shape helpers for tensors: shape(x), MakeVector, and integer indexing."""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape, Shape_i, shape_op
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.type import TensorType
from opkit.core.tensor.variable import as_tensor_variable


def shape(x):
    """Return the shape of `x` as a symbolic int64 vector."""
    return shape_op(as_tensor_variable(x))


class MakeVector(Op):
    """Stack int64 scalars into an int64 vector (an inferred shape)."""

    __props__ = ()

    def make_node(self, *scalars):
        scalars = [as_tensor_variable(s) for s in scalars]
        for s in scalars:
            if s.ndim != 0 or s.dtype[:3] not in ("int", "uin"):
                raise TypeError(f"MakeVector takes integer scalars, got {s} of type {s.type}")
        return Apply(self, scalars, [TensorType("int64", (len(scalars),))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs, dtype="int64").reshape(len(inputs))

    def infer_shape(self, node, input_shapes):
        return [(len(node.inputs),)]


class GetItem(Op):
    """x[i] for an integer i: drop the first axis (a copy, never a view)."""

    __props__ = ("index",)

    def __init__(self, index):
        self.index = int(index)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if x.ndim == 0:
            raise TypeError(f"cannot index a 0-d tensor {x}")
        length = x.type.shape[0]
        if length is not None and not -length <= self.index < length:
            raise IndexError(f"index {self.index} is out of bounds for axis 0 with size {length}")
        return Apply(self, [x], [TensorType(x.dtype, x.type.shape[1:])()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.array(inputs[0][self.index], dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        return [tuple(input_shapes[0][1:])]


make_vector = MakeVector()


def getitem(x, index):
    """Return x[index] for an integer index (shape vectors index to Shape_i)."""
    if not isinstance(index, (int, np.integer)):
        raise TypeError(f"only integer indices are supported on symbolic tensors, got {index!r}")
    index = int(index)
    owner = x.owner
    if owner is not None and isinstance(owner.op, Shape) and index >= 0:
        source = owner.inputs[0]
        if source.type.ndim is not None and index >= source.type.ndim:
            raise IndexError(f"{source} has {source.type.ndim} dimensions; no shape[{index}]")
        return Shape_i(index)(source)
    return GetItem(index)(x)

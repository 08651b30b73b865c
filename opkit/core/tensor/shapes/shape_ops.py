"""Shape helpers for tensors: shape(x) (a Shape op) and MakeVector (int64 scalars stacked into a vector)."""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import shape_op
from opkit.core.c_source import render
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.types.c_interface import c_dtype
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


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

    def has_c_code(self, node):
        # uint64 values above int64's range: perform raises numpy's OverflowError.
        return all(v.dtype != "uint64" for v in node.inputs)

    def c_code(self, node, name, inputs, outputs, sub):
        return render("make_vector.c.j2", "make_vector", out=outputs[0], inputs=list(inputs),
                      ctypes=[c_dtype(v.dtype) for v in node.inputs], fail=sub["fail"])

    def c_code_cache_version(self):
        return (2,)

    def infer_shape(self, node, input_shapes):
        return [(len(node.inputs),)]

    def shape_checks(self, node, input_shapes):
        return []  # make_node checked its inputs


make_vector = MakeVector()

"""Elemwise: a scalar function applied over broadcast arrays."""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.type import TensorType
from opkit.core.tensor.variable import as_tensor_variable, constant


def broadcast_shape(shapes, what="inputs"):
    """Return the static broadcast shape of several static shapes (None = unknown)."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for axis in range(ndim):
        sizes = {s[axis] for s in padded}
        known = {n for n in sizes if n is not None and n != 1}
        if len(known) > 1:
            raise ValueError(f"{what} cannot be broadcast together: axis {axis} has lengths {sorted(known)}")
        if known:
            result.append(known.pop())
        elif None in sizes:
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


class Elemwise(Op):
    """Apply `scalar_op` elementwise with numpy broadcasting and numpy's dtype rules."""

    __props__ = ("scalar_op",)

    def __init__(self, scalar_op):
        self.scalar_op = scalar_op

    def make_node(self, *inputs):
        if len(inputs) != self.scalar_op.nin:
            raise TypeError(f"{self} takes {self.scalar_op.nin} inputs, got {len(inputs)}")
        inputs = [as_tensor_variable(i) for i in inputs]
        operands = [i.tag.get("weak_value", i.dtype) if not i.owner else i.dtype for i in inputs]
        out_dtype = self.scalar_op.output_dtype(operands)
        if not all(isinstance(o, str) for o in operands):
            inputs = [_retype_weak(i, out_dtype) for i in inputs]
        shape = broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")
        return Apply(self, inputs, [TensorType(out_dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        with np.errstate(all="ignore"):
            result = self.scalar_op.ufunc(*inputs)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        from opkit.core.tensor import basic

        ndim = node.outputs[0].ndim
        static = node.outputs[0].type.shape
        result = []
        for axis in range(ndim):
            if static[axis] is not None:
                result.append(static[axis])
                continue
            dims = []
            for variable, shape in zip(node.inputs, input_shapes):
                offset = axis - (ndim - len(shape))
                if offset >= 0 and variable.type.shape[offset] != 1:
                    dims.append(shape[offset])
            dim = dims[0]
            for other in dims[1:]:
                dim = basic.maximum(dim, other)
            result.append(dim)
        return [tuple(result)]

    def c_support_code(self):
        from opkit.core.tensor.elemwise_c import SUPPORT_CODE

        return SUPPORT_CODE

    def c_code(self, node, name, inputs, outputs, sub):
        from opkit.core.tensor.elemwise_c import elemwise_c_code

        program = [(self.scalar_op, tuple(range(len(inputs))), node.outputs[0].dtype)]
        return elemwise_c_code(node, name, inputs, outputs, sub, program)

    def c_code_cache_version(self):
        return (3,)

    def grad(self, inputs, output_grads):
        from opkit.core.tensor import elemwise_grad

        return elemwise_grad.grad(self, inputs, output_grads)

    def R_op(self, inputs, eval_points):
        from opkit.core.tensor import elemwise_grad

        return elemwise_grad.r_op(self, inputs, eval_points)

    def __str__(self):
        return self.scalar_op.name


def _retype_weak(variable, dtype):
    """Give a Python-scalar constant the operation's dtype, as numpy does (NEP 50)."""
    weak = variable.tag.get("weak_value")
    if weak is None or variable.owner is not None:
        return variable
    return constant(np.asarray(weak).astype(dtype))

"""concatenate and stack: join tensors along an axis (numpy's dtype promotion, as PyTensor's join)."""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import cast, expand_dims, float_zeros_like, is_float_dtype, shape_dims, zeros_like
from opkit.core.tensor.shapes.subtensor import subtensor
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


def _axis(axis, ndim, what):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of range for {ndim}-d tensors")
    return axis + ndim if axis < 0 else axis


class Concatenate(Op):
    """numpy.concatenate along a fixed axis."""

    __props__ = ("axis",)

    def __init__(self, axis):
        self.axis = int(axis)

    def make_node(self, *tensors):
        tensors, ndim = _tensors_of_one_rank(tensors, "concatenate")
        if ndim == 0:
            raise ValueError("concatenate: 0-d tensors cannot be joined; use stack")
        axis = _axis(self.axis, ndim, "concatenate")
        shape = []
        for a in range(ndim):
            lengths = [t.type.shape[a] for t in tensors]
            if a == axis:
                shape.append(None if None in lengths else sum(lengths))
                continue
            known = {n for n in lengths if n is not None}
            if len(known) > 1:
                raise ValueError(f"concatenate along axis {axis}: the tensors' lengths on axis {a} differ "
                                 f"({', '.join(map(str, lengths))}); only the joined axis may differ")
            shape.append(known.pop() if known and None not in lengths else None)
        dtype = str(np.result_type(*[t.dtype for t in tensors]))
        return Apply(self, tensors, [TensorType(dtype, tuple(shape))()])

    def perform(self, node, inputs, output_storage):
        axis = _axis(self.axis, node.outputs[0].ndim, "concatenate")
        try:
            result = np.concatenate(inputs, axis=axis, dtype=node.outputs[0].dtype)
        except ValueError as exc:
            shapes = ", ".join(str(np.shape(i)) for i in inputs)
            raise ValueError(f"concatenate along axis {axis} of arrays with shapes {shapes}: {exc}") from None
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        axis = _axis(self.axis, node.outputs[0].ndim, "concatenate")
        total = input_shapes[0][axis]
        for shape in input_shapes[1:]:
            total = total + shape[axis]
        return [tuple(total if a == axis else s for a, s in enumerate(input_shapes[0]))]

    def shape_checks(self, node, input_shapes):
        """numpy's check, in its order: each array against the first on every axis but the joined one."""
        axis = _axis(self.axis, node.outputs[0].ndim, "concatenate")
        shapes = ", ".join(shape_template(len(s)) for s in input_shapes)
        every_dim = [d for shape in input_shapes for d in shape]
        first, checks = input_shapes[0], []
        for index, shape in enumerate(input_shapes[1:], 1):
            for a, length in enumerate(shape):
                if a == axis:
                    continue
                template = (f"concatenate along axis {axis} of arrays with shapes {shapes}: all the input array "
                            "dimensions except for the concatenation axis must match exactly, but along dimension "
                            f"{a}, the array at index 0 has size {{}} and the array at index {index} has size {{}}")
                checks.append(("ValueError", template, "eq", length, first[a], (*every_dim, first[a], length)))
        return [check_chain(checks)]

    def grad(self, inputs, output_grads):
        g = output_grads[0]
        axis = _axis(self.axis, g.ndim, "concatenate")
        start, result = 0, []
        for x in inputs:
            stop = start + shape_dims(x)[axis]
            index = (slice(None),) * axis + (slice(start, stop),)
            result.append(cast(subtensor(g, index), x.dtype) if is_float_dtype(x.dtype) else float_zeros_like(x))
            start = stop
        return result

    def R_op(self, inputs, eval_points):
        if all(e is None for e in eval_points):
            return [None]
        return [self(*[e if e is not None else zeros_like(x) for x, e in zip(inputs, eval_points)])]

    def __str__(self):
        return f"Concatenate{{axis={self.axis}}}"


def concatenate(tensors, axis=0):
    """Return the tensors joined along an existing `axis` (numpy.concatenate)."""
    return Concatenate(axis)(*tensors)


def stack(tensors, axis=0):
    """Return the tensors joined along a new `axis` (numpy.stack): each gets a length-1 axis there."""
    tensors, ndim = _tensors_of_one_rank(tensors, "stack")
    axis = _axis(axis, ndim + 1, "stack")
    return Concatenate(axis)(*[expand_dims(t, [axis]) for t in tensors])


def _tensors_of_one_rank(tensors, what):
    """Return `tensors` as variables and their common number of dimensions; ValueError naming `what` if none or mixed."""
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise ValueError(f"{what} needs at least one tensor")
    ndims = {t.ndim for t in tensors}
    if len(ndims) > 1:
        listed = ", ".join(f"{t} ({t.ndim}-d)" for t in tensors)
        raise ValueError(f"{what}: all tensors must have the same number of dimensions, got {listed}")
    return tensors, ndims.pop()

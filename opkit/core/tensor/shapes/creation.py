"""Tensors made from a shape or a range: zeros, ones, full-size alloc, and arange."""

from __future__ import annotations

import numpy as np

from opkit.config import config
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Variable
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import alloc, known_dtype
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def _dims(shape, what):
    """Return `shape` (an int, a sequence of ints/int scalars, or an int vector) as int scalars."""
    if isinstance(shape, (int, np.integer)) or (isinstance(shape, Variable) and shape.ndim == 0):
        shape = [shape]
    if isinstance(shape, Variable):
        length = shape.type.shape[0] if shape.ndim == 1 else None
        if length is None:
            raise ValueError(f"{what}: the length of the shape vector {shape} must be known when the graph is "
                             "built (give a tuple of scalars instead)")
        return [shape[i] for i in range(length)]
    dims = []
    for d in shape:
        if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
            if d < 0:
                raise ValueError(f"{what}: negative dimensions are not allowed, got shape {tuple(shape)}")
            dims.append(constant(np.int64(d)))
        else:
            dims.append(as_tensor_variable(d))
    return dims


def _filled(value, shape, dtype, what):
    dtype = known_dtype(dtype, what) if dtype is not None else config.floatX
    return alloc(constant(np.asarray(value, dtype=dtype)), *_dims(shape, what))


def zeros(shape, dtype=None):
    """Return a tensor of zeros of `shape` (dtype: config.floatX unless given)."""
    return _filled(0, shape, dtype, "zeros")


def ones(shape, dtype=None):
    """Return a tensor of ones of `shape` (dtype: config.floatX unless given)."""
    return _filled(1, shape, dtype, "ones")


class ARange(Op):
    """numpy.arange(start, stop, step) with a fixed output dtype."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = known_dtype(dtype, "arange")

    def make_node(self, start, stop, step):
        inputs = [as_tensor_variable(v) for v in (start, stop, step)]
        for name, v in zip(("start", "stop", "step"), inputs):
            if v.ndim != 0 or np.dtype(v.dtype).kind not in "biuf":
                raise TypeError(f"arange: {name} must be a real scalar, got {v} of type {v.type}")
        return Apply(self, inputs, [TensorType(self.dtype, (None,))()])

    def perform(self, node, inputs, output_storage):
        start, stop, step = inputs
        if step == 0:
            raise ValueError("arange: step must not be zero")
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def infer_shape(self, node, input_shapes):
        return [(ARangeLength(self.dtype)(*node.inputs),)]

    def shape_checks(self, node, input_shapes):
        return []  # the length itself raises for a zero step

    def connection_pattern(self, node):
        return [[False], [False], [False]]

    def grad(self, inputs, output_grads):
        return [disconnected_type() for _ in inputs]


class ARangeLength(Op):
    """The length of numpy.arange(start, stop, step) as an int64 scalar (shape inference)."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = known_dtype(dtype, "arange")

    def make_node(self, start, stop, step):
        inputs = [as_tensor_variable(v) for v in (start, stop, step)]
        return Apply(self, inputs, [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        start, stop, step = inputs
        if step == 0:
            raise ValueError("arange: step must not be zero")
        # numpy's own length rule (its float rounding included), at the cost of making the range.
        output_storage[0][0] = np.asarray(len(np.arange(start, stop, step, dtype=self.dtype)), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]


def arange(start, stop=None, step=1, dtype=None):
    """Return numpy.arange(start, stop, step) symbolically; one argument is the stop, as in numpy."""
    if stop is None:
        start, stop = 0, start
    values = [as_tensor_variable(v) for v in (start, stop, step)]
    if dtype is None:
        samples = [np.asarray(v.tag.get("weak_value", np.zeros((), v.dtype)))
                   if v.owner is None else np.zeros((), v.dtype) for v in values]
        dtype = np.result_type(*samples)
        if dtype.kind == "b":
            dtype = np.dtype("int64")
    return ARange(dtype)(*values)

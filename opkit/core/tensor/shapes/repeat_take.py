"""repeat and take: numpy.repeat and numpy.take along an axis (C: repeat.c, take.c, numpy's own C calls).

Their gradients, RepeatGrad and TakeGrad, sum the output gradient back into x with numpy.add.at
(perform: numpy), as PyTensor's inc_subtensor of an advanced index does.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Constant
from opkit.core.op import Op
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.elementwise.logic import eq, switch
from opkit.core.tensor.shapes.alloc import cast, float_dtype, float_zeros_like, is_float_dtype
from opkit.core.tensor.shapes.axes import broadcast_arrays, normalize_axis
from opkit.core.tensor.shapes.join import stack
from opkit.core.tensor.shapes.reshape import flatten
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

# numpy's NPY_CLIPMODE values (ndarraytypes.h), what PyArray_TakeFrom reads
CLIP_MODES = {"clip": 0, "wrap": 1, "raise": 2}


@functools.lru_cache(maxsize=None)
def _params(*fields):
    return ParamsType(**{f: SCALAR_TYPES["int64"] for f in fields})


def _gradient_dtype(x, g):
    return x.dtype if is_float_dtype(x.dtype) else float_dtype(g.dtype)


class Repeat(SectionOp):
    """numpy.repeat(x, repeats, axis) for int64 `repeats`, a scalar or a vector (C: repeat.c, PyArray_Repeat)."""

    __props__ = ("axis",)
    section_files = ("repeat.c",)

    @property
    def params_type(self):
        return _params("axis")

    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or axis < 0:
            raise ValueError(f"Repeat: axis must be a nonnegative int (the function repeat takes negative ones "
                             f"and None), got {axis!r}")
        self.axis = int(axis)

    def make_node(self, x, repeats):
        x, repeats = as_tensor_variable(x), as_tensor_variable(repeats)
        if self.axis >= x.ndim:
            raise np.exceptions.AxisError(self.axis, x.ndim, "repeat: axis")
        if repeats.dtype != "int64" or repeats.ndim > 1:
            raise TypeError(f"Repeat: repeats must be an int64 scalar or vector, got {repeats} of type "
                            f"{repeats.type}")
        shape = list(x.type.shape)
        shape[self.axis] = _static_length(shape[self.axis], repeats)
        return Apply(self, [x, repeats], [TensorType(x.dtype, tuple(shape))()])

    def perform(self, node, inputs, output_storage, params=None):
        x, repeats = inputs
        output_storage[0][0] = np.repeat(x, repeats, axis=self.axis)

    def infer_shape(self, node, input_shapes):
        shape = list(input_shapes[0])
        shape[self.axis] = RepeatLength()(shape[self.axis], node.inputs[1])
        return [tuple(shape)]

    def shape_checks(self, node, input_shapes):
        return [RepeatLength()(input_shapes[0][self.axis], node.inputs[1])]  # numpy's errors for bad repeats

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        x, repeats = inputs
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x), disconnected_type()]
        return [RepeatGrad(self.axis)(x, repeats, output_grads[0]), disconnected_type()]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]

    def __str__(self):
        return f"Repeat{{axis={self.axis}}}"


def _static_length(length, repeats):
    """The repeated axis's static length, where the length and the repeats are known and valid; else None."""
    if length is None or not isinstance(repeats, Constant):
        return None
    try:
        return len(np.repeat(np.broadcast_to(np.zeros((), bool), (length,)), repeats.data))
    except ValueError:
        return None  # the node raises numpy's error when it runs


class RepeatLength(Op):
    """The length numpy.repeat gives an axis of `length` elements, raising numpy's errors (shape inference)."""

    __props__ = ()

    def make_node(self, length, repeats):
        return Apply(self, [as_tensor_variable(length), as_tensor_variable(repeats)], [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        length, repeats = inputs
        axis = np.broadcast_to(np.zeros((), bool), (int(length),))
        output_storage[0][0] = np.asarray(len(np.repeat(axis, repeats)), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]


class RepeatGrad(Op):
    """x's gradient of numpy.repeat: each element's repeated gradients summed (perform: numpy.add.at)."""

    __props__ = ("axis",)

    def __init__(self, axis):
        self.axis = int(axis)

    def make_node(self, x, repeats, g):
        x, repeats, g = (as_tensor_variable(v) for v in (x, repeats, g))
        return Apply(self, [x, repeats, g], [TensorType(_gradient_dtype(x, g), x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, repeats, g = inputs
        result = np.zeros(x.shape, dtype=node.outputs[0].dtype)
        sources = np.repeat(np.arange(x.shape[self.axis]), repeats)
        np.add.at(result, (slice(None),) * self.axis + (sources,), g)
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[False], [False], [True]]

    def grad(self, inputs, output_grads):
        x, repeats, g = inputs
        return [disconnected_type(), disconnected_type(), Repeat(self.axis)(output_grads[0], repeats)]


def repeat(a, repeats, axis=None):
    """Return numpy.repeat(a, repeats, axis): each element repeated (axis=None: of the flattened `a`)."""
    a = as_tensor_variable(a)
    if axis is None:
        a, axis = flatten(a, 1), 0
    else:
        axis = normalize_axis(axis, a.ndim, "repeat")
    repeats = as_tensor_variable(repeats)
    if np.dtype(repeats.dtype).kind not in "iu" or repeats.ndim > 1:
        raise TypeError(f"repeat: repeats must be an integer or a vector of integers, got {repeats} of type "
                        f"{repeats.type}")
    if repeats.dtype == "uint64":
        raise TypeError("repeat: repeats of dtype uint64 cannot be cast to numpy's intp (the rule 'safe'); "
                        "cast them to int64")
    return Repeat(axis)(a, cast(repeats, "int64"))


class Take(SectionOp):
    """numpy.take(x, indices, axis, mode=mode) (C: take.c, PyArray_TakeFrom)."""

    __props__ = ("axis", "mode")
    section_files = ("take.c",)

    @property
    def params_type(self):
        return _params("axis", "clipmode")

    def __init__(self, axis, mode="raise"):
        if mode not in CLIP_MODES:
            raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
        self.axis, self.mode = int(axis), mode

    @property
    def clipmode(self):
        return CLIP_MODES[self.mode]

    def make_node(self, x, indices):
        x, indices = as_tensor_variable(x), as_tensor_variable(indices)
        if self.axis >= x.ndim:
            raise np.exceptions.AxisError(self.axis, x.ndim, "take: axis")
        if np.dtype(indices.dtype).kind not in "iu" or indices.dtype == "uint64":
            raise TypeError(f"take: indices must be integers (not uint64), got {indices} of type {indices.type}")
        shape = x.type.shape[:self.axis] + indices.type.shape + x.type.shape[self.axis + 1:]
        return Apply(self, [x, indices], [TensorType(x.dtype, shape)()])

    def perform(self, node, inputs, output_storage, params=None):
        x, indices = inputs
        output_storage[0][0] = np.asarray(np.take(x, indices, axis=self.axis, mode=self.mode))

    def infer_shape(self, node, input_shapes):
        dims, index_dims = input_shapes
        return [(*dims[:self.axis], *index_dims, *dims[self.axis + 1:])]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # the indices' bounds: the take itself raises numpy's IndexError

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        x, indices = inputs
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x), disconnected_type()]
        return [TakeGrad(self.axis, self.mode)(x, indices, output_grads[0]), disconnected_type()]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]

    def __str__(self):
        return f"Take{{axis={self.axis}, mode={self.mode}}}"


class TakeGrad(Op):
    """x's gradient of numpy.take: the gradients of each taken element summed (perform: numpy.add.at)."""

    __props__ = ("axis", "mode")

    def __init__(self, axis, mode):
        self.axis, self.mode = int(axis), mode

    def make_node(self, x, indices, g):
        x, indices, g = (as_tensor_variable(v) for v in (x, indices, g))
        return Apply(self, [x, indices, g], [TensorType(_gradient_dtype(x, g), x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, indices, g = inputs
        n = x.shape[self.axis]
        indices = np.clip(indices, 0, n - 1) if self.mode == "clip" else np.mod(indices, max(n, 1))
        result = np.zeros(x.shape, dtype=node.outputs[0].dtype)
        np.add.at(result, (slice(None),) * self.axis + (indices,), g)
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[False], [False], [True]]

    def grad(self, inputs, output_grads):
        x, indices, g = inputs
        return [disconnected_type(), disconnected_type(), Take(self.axis, self.mode)(output_grads[0], indices)]


def take(a, indices, axis=None, mode="raise"):
    """Return numpy.take(a, indices, axis, mode): elements at `indices` along `axis` (None: the flattened `a`)."""
    a = as_tensor_variable(a)
    if axis is None:
        a, axis = flatten(a, 1), 0
    else:
        axis = normalize_axis(axis, a.ndim, "take")
    if mode not in CLIP_MODES:
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return Take(axis, mode)(a, indices)


class Choose(Op):
    """numpy.choose(a, choices, mode): choices[a] elementwise, a broadcast against each choice (perform: numpy, as
    PyTensor's; no gradient, as PyTensor's)."""

    __props__ = ("mode",)

    def __init__(self, mode="raise"):
        if mode not in CLIP_MODES:
            raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
        self.mode = mode

    def make_node(self, a, choices):
        a, choices = as_tensor_variable(a), as_tensor_variable(choices)
        if np.dtype(a.dtype).kind not in "biu":
            raise TypeError(f"choose: a must be integers, got {a} of type {a.type}")
        if choices.ndim == 0:
            raise ValueError("choose: choices must be a sequence of tensors or a tensor of at least one dimension")
        ndim = max(a.ndim, choices.ndim - 1)
        return Apply(self, [a, choices], [TensorType(choices.dtype, (None,) * ndim)()])

    def perform(self, node, inputs, output_storage):
        a, choices = inputs
        output_storage[0][0] = np.asarray(np.choose(a, choices, mode=self.mode), dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        shapes = [tuple(input_shapes[0]), tuple(input_shapes[1][1:])]
        ndim = len(node.outputs[0].type.shape)
        result = []
        for axis in range(ndim):
            length = None
            for shape in shapes:
                if axis - ndim + len(shape) >= 0:
                    dim = shape[axis - ndim + len(shape)]
                    length = dim if length is None else switch(eq(length, 1), dim, length)
            result.append(length)
        return [tuple(result)]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # shapes that do not broadcast, an index out of range (mode 'raise')


def choose(a, choices, mode="raise"):
    """Return numpy.choose(a, choices, mode): the element of choices[a] at each position."""
    if isinstance(choices, (list, tuple)):
        if not choices:
            raise ValueError("choose: choices must not be empty")
        choices = stack(broadcast_arrays(*choices))
    return Choose(mode)(a, choices)


__all__ = ["Choose", "Repeat", "Take", "choose", "repeat", "take"]

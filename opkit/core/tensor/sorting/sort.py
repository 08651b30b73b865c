"""sort and argsort along an axis (numpy's order: NaN last), and TakeAlongAxis, which sort's gradient uses.

`kind` is accepted and ignored, as PyTensor's C path ignores it: sort's values are numpy's quicksort's (np.sort,
bit for bit: the C calls numpy's PyArray_Sort) and argsort is always stable (equal values keep their order,
numpy's kind="stable", PyArray_ArgSort), which is one of the orders every kind may give. `axis=None` sorts the
flattened tensor. C: sort.c, argsort.c, and sort_support.c with take_along_axis.c; float16 and complex inputs
run numpy in perform.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.gradient_types import disconnected_type, grad_not_implemented
from opkit.core.graph import Apply
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.shapes.alloc import float_zeros_like, is_float_dtype
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

KINDS = ("quicksort", "mergesort", "heapsort", "stable")


@functools.lru_cache(maxsize=None)
def axis_params():
    """The params type of an op with one int64 `axis`, made on first compile (importing builds none)."""
    return ParamsType(axis=SCALAR_TYPES["int64"])


def lane_axis(x, axis, what):
    """Return (x, axis) with `axis` an int in [0, x.ndim): None flattens x; out of range raises AxisError."""
    x = as_tensor_variable(x)
    if axis is None:
        return x.flatten(), 0
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{what}: axis must be an integer or None, got {axis!r}")
    if x.ndim == 0:
        raise np.exceptions.AxisError(int(axis), 0, msg_prefix=f"{what} of a 0-d tensor (use axis=None)")
    if not -x.ndim <= int(axis) < x.ndim:
        raise np.exceptions.AxisError(int(axis), x.ndim, msg_prefix=f"{what} of a {x.ndim}-d tensor")
    return x, int(axis) % x.ndim


def _check_kind(kind, order, what):
    if kind is not None and kind not in KINDS:
        raise ValueError(f"{what}: kind must be one of {', '.join(KINDS)} (it is ignored: sort gives numpy's "
                         f"values and argsort is stable), got {kind!r}")
    if order is not None:
        raise ValueError(f"{what}: order (structured arrays' field names) is not supported; leave it None")


def _sortable_c(dtype):
    kind = np.dtype(dtype).kind
    return kind in "biu" or dtype in ("float32", "float64")


class _LaneOp(SectionOp):
    """An op along one axis (a non-negative int prop `axis`) with the lane helpers of sort_support.c."""

    __props__ = ("axis",)

    @property
    def params_type(self):
        return axis_params()

    def __init__(self, axis):
        self.axis = int(axis)

    def _check(self, x, what):
        if not 0 <= self.axis < max(x.ndim, 1) or x.ndim == 0:
            raise np.exceptions.AxisError(self.axis, x.ndim, msg_prefix=f"{what} of a {x.ndim}-d tensor")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[-1]]  # the input's (Sort, Argsort), the index's (TakeAlongAxis)

    def shape_checks(self, node, input_shapes):
        return []  # no shape makes it fail: a lane of any length sorts (TakeAlongAxis: sort's gradient's own order)

    def has_c_code(self, node):
        return _sortable_c(node.inputs[0].dtype) and super().has_c_code(node)

    def c_code_cache_version(self):
        return (1, *super().c_code_cache_version())

    def __str__(self):
        return f"{type(self).__name__}{{axis={self.axis}}}"


class Sort(_LaneOp):
    """x with each lane along `axis` sorted ascending, NaN last (numpy.sort)."""

    section_files = ("sort_support.c", "sort.c")

    def make_node(self, x):
        x = as_tensor_variable(x)
        self._check(x, "sort")
        return Apply(self, [x], [TensorType(x.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage, params=None):
        output_storage[0][0] = np.sort(inputs[0], axis=self.axis)  # numpy's quicksort, as the C's PyArray_Sort

    def L_op(self, inputs, outputs, output_grads):
        # As PyTensor: the output gradient sent back through the inverse of the sorting permutation.
        x, = inputs
        g, = output_grads
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x)]
        order = Argsort(self.axis)(x)
        return [TakeAlongAxis(self.axis)(g, Argsort(self.axis)(order))]

    def grad(self, inputs, output_grads):
        return self.L_op(inputs, [self(*inputs)], output_grads)

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [TakeAlongAxis(self.axis)(eval_points[0], Argsort(self.axis)(inputs[0]))]


class Argsort(_LaneOp):
    """The int64 indices that sort each lane of x along `axis`, stably, NaN last (numpy.argsort, kind='stable')."""

    section_files = ("sort_support.c", "argsort.c")

    def make_node(self, x):
        x = as_tensor_variable(x)
        self._check(x, "argsort")
        return Apply(self, [x], [TensorType("int64", x.type.shape)()])

    def perform(self, node, inputs, output_storage, params=None):
        output_storage[0][0] = np.argsort(inputs[0], axis=self.axis, kind="stable").astype("int64", copy=False)

    def grad(self, inputs, output_grads):
        # As PyTensor: indices do not move with x; the input gets a zero gradient.
        return [float_zeros_like(inputs[0])]


class TakeAlongAxis(_LaneOp):
    """g's lanes along `axis` gathered by the int64 `index` (numpy.take_along_axis): what sort's gradient uses."""

    section_files = ("sort_support.c", "take_along_axis.c")

    def make_node(self, g, index):
        g, index = as_tensor_variable(g), as_tensor_variable(index)
        self._check(g, "take_along_axis")
        if index.dtype != "int64" or index.ndim != g.ndim:
            raise TypeError(f"take_along_axis: the index must be an int64 tensor of {g.ndim} dimensions, got "
                            f"{index} of type {index.type}")
        return Apply(self, [g, index], [TensorType(g.dtype, index.type.shape)()])

    def perform(self, node, inputs, output_storage, params=None):
        g, index = inputs
        output_storage[0][0] = np.take_along_axis(g, index, axis=self.axis)

    def has_c_code(self, node):
        return np.dtype(node.inputs[0].dtype).kind in "biuf" and node.inputs[0].dtype != "float16" \
            and SectionOp.has_c_code(self, node)

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return [grad_not_implemented(self, 0, inputs[0], "the gradient of take_along_axis (a scatter-add)"),
                disconnected_type()]


def sort(a, axis=-1, kind="quicksort", order=None, *, stable=None):
    """Return `a` sorted along `axis` (None: flattened), NaN last, as numpy.sort; `kind` is ignored."""
    _check_kind(kind, order, "sort")
    a, axis = lane_axis(a, axis, "sort")
    return Sort(axis)(a)


def argsort(a, axis=-1, kind="quicksort", order=None, *, stable=None):
    """Return the int64 indices that sort `a` along `axis` (None: flattened), stably, NaN last."""
    _check_kind(kind, order, "argsort")
    a, axis = lane_axis(a, axis, "argsort")
    return Argsort(axis)(a)

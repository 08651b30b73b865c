"""searchsorted, unique, bincount, median, permute_row_elements, inverse_permutation, and PyTensor's SortOp and
ArgSortOp (its names of sort's and argsort's ops).

SearchsortedOp and Unique run numpy in perform, as PyTensor's Unique does (PyTensor's SearchsortedOp calls
numpy's PyArray_SearchSorted from C: the same numbers). The others are graphs of ops with C: bincount is an
advanced increment into zeros, median picks from sort, permute_row_elements is take_along_axis (of argsort
for the inverse).
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import add, maximum, true_div
from opkit.core.tensor.elementwise.elemwise_elementary import isnan
from opkit.core.tensor.elementwise.elemwise_math import int_div
from opkit.core.tensor.elementwise.logic import switch
from opkit.core.tensor.reductions.reduction import max as max_, min as min_, normalize_axis
from opkit.core.tensor.shapes.advanced_index import advanced_inc_subtensor
from opkit.core.tensor.shapes.alloc import cast, float_zeros_like, shape_dims
from opkit.core.tensor.shapes.creation import zeros
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.shapes.take_along_axis import take_along_axis
from opkit.core.tensor.shapes.unravel import integer_tensor
from opkit.core.tensor.sorting.sort import KINDS, Argsort, Sort, argsort, lane_axis, sort
from opkit.core.tensor.types.shape_checks import Assert, Depend
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


# -- PyTensor's sort ops ---------------------------------------------------------------------------------------

def _axis_value(axis, what):
    """`axis` (an int, an integer numpy scalar or an integer constant) as an int, or a TypeError."""
    data = getattr(axis, "data", axis)
    if isinstance(data, np.ndarray) and data.ndim == 0:
        data = data.item()
    if axis is None or isinstance(data, (bool, np.bool_)) or not isinstance(data, (int, np.integer)):
        raise TypeError(f"{what}: axis must be an integer (a Python int or an integer constant), got {axis!r}")
    return int(data)


class SortOp(Op):
    """PyTensor's SortOp(kind)(x, axis=-1): builds opkit's Sort along `axis` (the node's op is Sort)."""

    __props__ = ("kind",)
    default_output = None

    def __init__(self, kind="quicksort"):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind}")
        self.kind = kind

    def make_node(self, input, axis=-1):
        x, axis = lane_axis(input, _axis_value(axis, "SortOp"), "sort")
        return Sort(axis).make_node(x)


class ArgSortOp(SortOp):
    """PyTensor's ArgSortOp(kind)(x, axis=-1): builds opkit's Argsort along `axis` (stable, int64)."""

    def make_node(self, input, axis=-1):
        x, axis = lane_axis(input, _axis_value(axis, "ArgSortOp"), "argsort")
        return Argsort(axis).make_node(x)


# -- searchsorted ----------------------------------------------------------------------------------------------

class SearchsortedOp(Op):
    """numpy.searchsorted(x, v, side, sorter): int64 insertion points of `v` into the sorted vector `x`."""

    __props__ = ("side",)

    def __init__(self, side="left"):
        if side not in ("left", "right"):
            raise ValueError(f"'{side}' is an invalid value for keyword 'side'")
        self.side = side

    def make_node(self, x, v, sorter=None):
        x, v = as_tensor_variable(x), as_tensor_variable(v)
        if x.ndim != 1:
            raise ValueError(f"searchsorted: x must be a vector (1-d), got {x} with {x.ndim} dimensions")
        inputs = [x, v]
        if sorter is not None:
            sorter = integer_tensor(sorter, "searchsorted", "sorter")
            if sorter.ndim != 1:
                raise ValueError(f"searchsorted: sorter must be a vector, got {sorter} with {sorter.ndim} "
                                 "dimensions")
            inputs.append(sorter)
        return Apply(self, inputs, [TensorType("int64", v.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, v, *sorter = inputs
        found = np.searchsorted(x, v, side=self.side, sorter=sorter[0] if sorter else None)
        output_storage[0][0] = np.asarray(found, dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[1]]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]] if len(node.inputs) == 3 else []  # a sorter of another length: numpy's error

    def connection_pattern(self, node):
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def grad(self, inputs, output_grads):
        # As PyTensor: zero for x and v (the indices are piecewise constant), disconnected for the sorter.
        return [float_zeros_like(inputs[0]), float_zeros_like(inputs[1])] + \
            [disconnected_type() for _ in inputs[2:]]


def searchsorted(x, v, side="left", sorter=None):
    """Return numpy.searchsorted(x, v, side, sorter): where each value of `v` goes into the sorted vector `x`
    (int64, v's shape)."""
    return SearchsortedOp(side=side)(x, v, sorter)


# -- unique ----------------------------------------------------------------------------------------------------

class Unique(Op):
    """numpy.unique(x, return_index, return_inverse, return_counts, axis), PyTensor's: the inverse indices are a
    vector (numpy before 2.0), the other index outputs int64 vectors."""

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")

    def __init__(self, return_index=False, return_inverse=False, return_counts=False, axis=None):
        self.return_index, self.return_inverse, self.return_counts = (
            bool(return_index), bool(return_inverse), bool(return_counts))
        if axis is not None and int(axis) < 0:
            raise ValueError("Axis cannot be negative.")
        self.axis = None if axis is None else int(axis)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if self.axis is None:
            shape = (None,)
        else:
            if self.axis >= x.ndim:
                raise ValueError(f"Axis {self.axis} out of range for input {x} with ndim={x.ndim}.")
            shape = tuple(None if a == self.axis else s for a, s in enumerate(x.type.shape))
        count = self.return_index + self.return_inverse + self.return_counts
        outputs = [TensorType(x.dtype, shape)()] + [TensorType("int64", (None,))() for _ in range(count)]
        return Apply(self, [x], outputs)

    def perform(self, node, inputs, output_storage):
        x, = inputs
        found = np.unique(x, self.return_index, self.return_inverse, self.return_counts, axis=self.axis)
        found = list(found) if isinstance(found, tuple) else [found]
        if self.return_inverse:  # PyTensor's: a vector, the length of the flattened input or of the axis
            at = 2 if self.return_index else 1
            found[at] = found[at].reshape(-1)
        for cell, value, out in zip(output_storage, found, node.outputs):
            cell[0] = np.asarray(value, dtype=out.dtype)

    def connection_pattern(self, node):
        return [[False] * len(node.outputs)]

    def grad(self, inputs, output_grads):
        return [disconnected_type()]


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """Return numpy.unique(ar, ...): the sorted unique values, and the int64 indices, inverse (a vector) and counts
    asked for (a list of outputs then)."""
    ar = as_tensor_variable(ar)
    if axis is not None:
        _, axis = lane_axis(ar, axis, "unique")
    return Unique(return_index, return_inverse, return_counts, axis)(ar)


# -- bincount --------------------------------------------------------------------------------------------------

def bincount(x, weights=None, minlength=None, assert_nonneg=False):
    """Return numpy.bincount(x, weights, minlength): int64 counts of each value of the non-negative int (or bool)
    vector `x`, or sums of `weights` (float64, numpy's) at them.

    A negative value raises numpy's ValueError whatever `assert_nonneg` says (PyTensor's flag, kept for its
    callers): without the check it would count at an index from the end, a wrong number without an error."""
    x = as_tensor_variable(x)
    if x.ndim != 1:
        raise TypeError(f"bincount: x must be a vector (1-d), got {x} with {x.ndim} dimensions")
    if np.dtype(x.dtype).kind not in "biu":
        raise TypeError(f"bincount: x must be integers (or bool), got {x} of dtype {x.dtype}")
    may_be_negative = x.dtype in ("int8", "int16", "int32", "int64", "uint64")  # uint64 above 2**63 wraps
    x = cast(x, "int64")  # an index, not a mask, for bool too
    if may_be_negative:  # whatever assert_nonneg says: see the docstring
        smallest = min_(concatenate([x, constant(np.zeros(1, "int64"))]))
        x = Depend()(x, Assert("ValueError", "'list' argument must have no negative elements", "ge")(smallest, 0))
    length = max_(concatenate([x, constant(np.full(1, -1, "int64"))])) + 1  # 0 for an empty x
    if minlength is not None:
        if isinstance(minlength, (int, np.integer)) and not isinstance(minlength, bool) and minlength < 0:
            raise ValueError("'minlength' must not be negative")
        length = maximum(length, cast(integer_tensor(minlength, "bincount", "minlength"), "int64"))
    if weights is None:
        return advanced_inc_subtensor(zeros([length], dtype="int64"), constant(np.int64(1)), x)
    weights = as_tensor_variable(weights)
    if weights.ndim != 1:
        raise ValueError(f"bincount: weights must be a vector like x, got {weights} with {weights.ndim} dimensions")
    return advanced_inc_subtensor(zeros([length], dtype="float64"), cast(weights, "float64"), x)


# -- median ----------------------------------------------------------------------------------------------------

def median(x, axis=None):
    """Return numpy.median(x, axis): the middle of the sorted values over `axis` (None: all), the mean of the two
    middle ones for an even count; NaN where a value is NaN; numpy's dtype (ints and bool: float64)."""
    x = as_tensor_variable(x)
    if np.dtype(x.dtype).kind == "c":
        raise TypeError(f"median: complex input is not supported, got {x} of dtype {x.dtype}")
    axes = normalize_axis(axis, x.ndim, "median")
    kept = [a for a in range(x.ndim) if a not in axes]
    dims = shape_dims(x)
    lanes = x.transpose([*kept, *axes]) if x.ndim else x.dimshuffle("x")
    if len(axes) != 1:
        lanes = lanes.reshape([*(dims[a] for a in kept), -1], ndim=len(kept) + 1)
    ordered = sort(lanes, axis=-1)
    size = ordered.shape[-1]
    half = int_div(size, 2)
    dt = np.result_type(np.dtype(x.dtype), np.float16) if np.dtype(x.dtype).kind == "f" else np.dtype("float64")
    lead = (slice(None),) * len(kept)
    upper = cast(ordered[lead + (half,)], dt)
    lower = cast(ordered[lead + (half - 1 + size % 2,)], dt)  # the same element for an odd count
    middle = true_div(add(lower, upper), np.asarray(2, dtype=dt))
    if np.dtype(x.dtype).kind == "f":
        middle = switch(isnan(ordered[lead + (-1,)]), ordered[lead + (-1,)], middle)  # NaN sorts last
    return middle


# -- permutations ----------------------------------------------------------------------------------------------

def permute_row_elements(x, y, inverse=False):
    """Return each row (last axis) of `x` permuted by the matching row of `y` (PyTensor's): out[..., i] =
    x[..., y[..., i]], or with `inverse` out[..., y[..., i]] = x[..., i]; leading axes broadcast, the smaller
    operand padded on the left."""
    x = as_tensor_variable(x)
    y = integer_tensor(y, "permute_row_elements", "y (the permutations)")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"permute_row_elements: x and y need at least one axis, got {x.ndim}-d and {y.ndim}-d")
    if x.ndim < y.ndim:
        x = x.dimshuffle(*["x"] * (y.ndim - x.ndim), *range(x.ndim))
    elif y.ndim < x.ndim:
        y = y.dimshuffle(*["x"] * (x.ndim - y.ndim), *range(y.ndim))
    index = argsort(y, axis=-1) if inverse else cast(y, "int64")
    return take_along_axis(x, index, axis=-1)


def inverse_permutation(perm):
    """Return the inverse of each permutation in `perm`'s last axis (PyTensor's), in perm's dtype."""
    perm = integer_tensor(perm, "inverse_permutation", "perm")
    if perm.ndim == 0:
        raise ValueError("inverse_permutation: perm must have at least one axis, got a scalar")
    return cast(argsort(perm, axis=-1), perm.dtype)


__all__ = ["ArgSortOp", "SearchsortedOp", "SortOp", "Unique", "bincount", "inverse_permutation", "median",
           "permute_row_elements", "searchsorted", "unique"]

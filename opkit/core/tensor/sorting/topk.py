"""Theano's topk, argtopk and topk_and_argtopk, built on argsort and take_along_axis.

``topk(x, kth, axis=-1, sorted=True, idx_dtype="int64")``: the `kth` largest values of `x` along `axis` (None:
flattened), largest first; a negative `kth` gives the -kth smallest, smallest first. Theano leaves the order
unspecified (its CPU op refuses sorted=True); opkit's is always this one, whatever `sorted` says. Among equal
values the later index comes first for the largest, the earlier for the smallest (a stable argsort, reversed for
the largest); NaN counts as the largest, as in numpy's sort. `kth` is an int or an int scalar variable (a
variable's sign is read when the graph runs; 0 gives an empty axis, where Theano raises). The gradient is
take_along_axis's: the output gradient scattered back to the positions taken (Theano's TopKOp.L_op); argtopk's
indices have none. Its C is argsort's and the indexing ops'.
"""

from __future__ import annotations

import numbers

import numpy as np

from opkit.core.tensor.elementwise.logic import switch
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.take_along_axis import take_along_axis
from opkit.core.tensor.sorting.sort import argsort
from opkit.core.tensor.types.variable import as_tensor_variable

INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _topk_indices(x, kth, axis, idx_dtype, what):
    x = as_tensor_variable(x)
    if idx_dtype not in INTEGER_DTYPES:
        raise TypeError(f"{what}: idx_dtype must be an integer dtype, got {idx_dtype!r}")
    if axis is None:
        x, axis = x.flatten(), 0
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (numbers.Integral, np.integer)):
        raise TypeError(f"{what}: axis must be an integer or None, got {axis!r}")
    if x.ndim == 0:
        raise ValueError(f"{what}: x must have at least one dimension (got a scalar)")
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(int(axis), x.ndim)
    axis = int(axis) % x.ndim
    order = argsort(x, axis=axis, kind="stable")

    def first(values, count):
        return values[(slice(None),) * axis + (slice(None, count),)]

    descending = order[(slice(None),) * axis + (slice(None, None, -1),)]
    if isinstance(kth, (numbers.Integral, np.integer)) and not isinstance(kth, (bool, np.bool_)):
        kth = int(kth)
        if kth == 0:
            raise ValueError(f"{what}: kth must not be 0")
        length = x.type.shape[axis]
        if length is not None and abs(kth) > length:
            raise ValueError(f"{what}: kth={kth} is larger than the length {length} of axis {axis}")
        taken = first(descending, kth) if kth > 0 else first(order, -kth)
    else:
        kth = as_tensor_variable(kth)
        if kth.ndim != 0 or kth.dtype not in INTEGER_DTYPES:
            raise TypeError(f"{what}: kth must be an integer or an integer scalar, got {kth} of type {kth.type}")
        count = abs(kth)
        taken = switch(kth > 0, first(descending, count), first(order, count))
    return x, axis, cast(taken, idx_dtype) if idx_dtype != "int64" else taken


def topk_and_argtopk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    """Return [the `kth` largest values of `x` along `axis` (negative kth: smallest), their indices]."""
    x, axis, indices = _topk_indices(x, kth, axis, idx_dtype, "topk_and_argtopk")
    return [take_along_axis(x, indices, axis=axis), indices]


def topk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    """Return the `kth` largest values of `x` along `axis`, largest first (negative kth: smallest, smallest first)."""
    x, axis, indices = _topk_indices(x, kth, axis, idx_dtype, "topk")
    return take_along_axis(x, indices, axis=axis)


def argtopk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    """Return the indices (`idx_dtype`) of the `kth` largest values of `x` along `axis` (negative kth: smallest)."""
    return _topk_indices(x, kth, axis, idx_dtype, "argtopk")[2]

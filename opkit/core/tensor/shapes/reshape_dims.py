"""PyTensor 3's reshape helpers: join_dims, split_dims, pack and unpack, built from reshape, concatenate and split.

- ``join_dims(x, start_axis=0, n_axes=None)`` merges `n_axes` consecutive axes from `start_axis` into one
  (None: to the last axis; 0 inserts an axis of length 1).
- ``split_dims(x, shape, axis=0)`` splits `axis` into the lengths `shape` (ints, int scalars or an int vector
  of known length; () removes an axis of length 1).
- ``pack(*tensors, keep_axes=None)`` keeps `keep_axes` (PyTensor's rules: positive ones from 0, negative ones
  to -1, contiguous) and ravels the rest of each tensor into one axis, the tensors concatenated along it;
  it returns (packed, [the raveled shape of each tensor]).
- ``unpack(packed, packed_shapes, keep_axes=None)`` reverses pack.

Their gradients are reshape's, concatenate's and split's; their C is reshape's (a view) and Join's.
"""

from __future__ import annotations

import numbers
from itertools import pairwise

import numpy as np

from opkit.core.tensor.shapes.alloc import shape_dims
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.shapes.reshape import reshape
from opkit.core.tensor.shapes.split import split
from opkit.core.tensor.types.variable import TensorVariable, as_tensor_variable, constant


def _int(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    return int(value)


def _product(dims):
    """The product of `dims`: an int where every entry is one, else an int64 scalar variable."""
    if all(isinstance(d, int) for d in dims):
        return int(np.prod(dims, dtype=np.int64))
    total = constant(np.int64(1))
    for d in dims:
        total = total * d
    return total


def _dims(x):
    """`x`'s lengths: an int where the type knows it, else the symbolic length."""
    return [known if known is not None else symbolic for known, symbolic in zip(x.type.shape, shape_dims(x))]


def join_dims(x, start_axis=0, n_axes=None):
    """Return `x` with its axes start_axis .. start_axis + n_axes - 1 merged into one (C order)."""
    x = as_tensor_variable(x)
    ndim = x.ndim
    start_axis = _int(start_axis, "join_dims: start_axis")
    if start_axis < 0:
        start_axis += max(1, ndim)  # a scalar is read as having one axis, as PyTensor's
    if not 0 <= start_axis <= ndim:
        raise IndexError(f"join_dims: axis {start_axis} is out of bounds for array of dimension {ndim}")
    n_axes = ndim - start_axis if n_axes is None else _int(n_axes, "join_dims: n_axes")
    if n_axes < 0:
        raise ValueError(f"join_dims: n_axes must be non-negative, got {n_axes}")
    if start_axis + n_axes > ndim:
        raise ValueError(f"join_dims: asked to join dimensions {start_axis} to {start_axis + n_axes - 1}, but {x} "
                         f"has only {ndim} dimensions")
    dims = _dims(x)
    joined = dims[:start_axis] + [_product(dims[start_axis:start_axis + n_axes])] + dims[start_axis + n_axes:]
    return reshape(x, joined, ndim=len(joined))


def _split_lengths(shape):
    """Return `shape` (an int, int scalar, a sequence of them, or an int vector of known length) as a list."""
    if isinstance(shape, (list, tuple)):
        entries = list(shape)
    elif isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        entries = [shape]
    else:
        shape = as_tensor_variable(shape)
        if shape.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"split_dims: shape must be integers, got {shape} of dtype {shape.dtype}")
        data = getattr(shape, "data", None)
        if data is not None and shape.ndim <= 1:
            entries = [int(v) for v in np.atleast_1d(data)]
        elif shape.ndim == 0:
            entries = [shape]
        elif shape.ndim == 1:
            length = shape.type.shape[0]
            if length is None:
                raise ValueError(f"split_dims: the length of the shape vector {shape} is not known when the graph "
                                 "is built; pass a sequence of lengths")
            entries = [shape[i] for i in range(length)]
        else:
            raise TypeError(f"split_dims: shape must be a 1-d tensor, got {shape} with {shape.ndim} dimensions")
    for entry in entries:
        if isinstance(entry, (bool, np.bool_, float, np.floating)):
            raise TypeError(f"split_dims: shape entries must be integers, got {entry!r}")
        if isinstance(entry, TensorVariable) and (entry.ndim != 0 or entry.dtype[:3] not in ("int", "uin")):
            raise TypeError(f"split_dims: shape entries must be integer scalars, got {entry}")
    return entries


def split_dims(x, shape, axis=0):
    """Return `x` with `axis` split into the lengths `shape` (their product must be the axis's length)."""
    x = as_tensor_variable(x)
    axis = _int(axis, "split_dims: axis")
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim)
    axis %= x.ndim
    lengths = _split_lengths(shape)
    dims = _dims(x)
    new = dims[:axis] + lengths + dims[axis + 1:]
    return reshape(x, new, ndim=len(new))


def _analyze_keep_axes(axes):
    """Return (axes kept before the raveled ones, axes kept after them, the fewest axes an input may have)."""
    if axes is None:
        return 0, 0, 0
    if isinstance(axes, (numbers.Integral, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        axes = (int(axes),)
    elif isinstance(axes, (list, tuple)):
        axes = tuple(_int(a, "keep_axes entries") for a in axes)
    else:
        raise TypeError(f"keep_axes must be an int, a sequence of ints, or None, got {axes!r}")
    if not axes:
        raise ValueError("keep_axes=[] is ambiguous; use None to ravel every axis")
    if len(set(axes)) != len(axes):
        raise ValueError(f"keep_axes must have no duplicates, got {axes}")
    first_negative = next((i for i, a in enumerate(axes) if a < 0), len(axes))
    positive, negative = list(axes[:first_negative]), list(axes[first_negative:])
    if not all(a < 0 for a in negative):
        raise ValueError(f"keep_axes: negative axes must come after positive ones, got {axes}")
    for part, sign in ((positive, "positive"), (negative, "negative")):
        if any(b != a + 1 for a, b in pairwise(part)):
            raise ValueError(f"keep_axes: the {sign} axes must be increasing and contiguous, got {axes}")
    if positive and positive[0] != 0:
        raise ValueError(f"keep_axes: the first positive axis must be 0 (to keep axes at the end, use negative "
                         f"ones), got {axes}")
    if negative and negative[-1] != -1:
        raise ValueError(f"keep_axes: the last negative axis must be -1 (to keep axes at the front, use positive "
                         f"ones), got {axes}")
    return len(positive), len(negative), len(positive) + len(negative)


def pack(*tensors, keep_axes=None):
    """Return (packed, packed_shapes): each tensor's axes but `keep_axes` raveled into one, concatenated along it."""
    if not tensors:
        raise ValueError("pack needs at least one tensor")
    tensors = [as_tensor_variable(t) for t in tensors]
    before, after, fewest = _analyze_keep_axes(keep_axes)
    raveled, shapes = [], []
    for i, t in enumerate(tensors):
        if t.ndim < fewest:
            raise ValueError(f"pack: input {i} (zero indexed) has {t.ndim} dimensions, but keep_axes={keep_axes!r} "
                             f"assumes at least {fewest} dimension{'s' if fewest != 1 else ''}")
        n_packed = t.ndim - before - after
        shapes.append(t.shape[before:before + n_packed])
        raveled.append(join_dims(t, before, n_packed))
    packed = raveled[0] if len(raveled) == 1 else concatenate(raveled, axis=before)
    return packed, shapes


def unpack(packed_input, packed_shapes, keep_axes=None):
    """Return the tensors `pack` packed: `packed_input` split along its raveled axis and each piece reshaped."""
    packed_input = as_tensor_variable(packed_input)
    if keep_axes is None:
        if packed_input.ndim != 1:
            raise ValueError(f"unpack: keep_axes=None needs a 1-d packed input, got {packed_input.ndim} dimensions")
        split_axis = 0
    else:
        kept = (keep_axes,) if isinstance(keep_axes, (numbers.Integral, np.integer)) else tuple(keep_axes)
        kept = {_int(a, "keep_axes entries") % max(packed_input.ndim, 1) for a in kept}
        rest = [i for i in range(packed_input.ndim) if i not in kept]
        if len(rest) != 1:
            raise ValueError(f"unpack: the packed input must have exactly one more dimension than keep_axes names: "
                             f"{packed_input} has {packed_input.ndim}, expected {len(kept) + 1}")
        split_axis = rest[0]
    packed_shapes = list(packed_shapes)
    if not packed_shapes:
        raise ValueError("unpack needs at least one packed shape")
    if len(packed_shapes) == 1:
        pieces = [packed_input]
    else:
        sizes = [_product(_split_lengths(s)) for s in packed_shapes]
        pieces = split(packed_input, sizes, len(sizes), axis=split_axis)
    return [split_dims(piece, shape, split_axis) for piece, shape in zip(pieces, packed_shapes)]

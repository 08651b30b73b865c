"""Functions that move, add, drop or broadcast axes, built from DimShuffle, Subtensor, Reshape, Alloc and Join.

squeeze, expand_dims, swapaxes, moveaxis, matrix_transpose, ravel, broadcast_to, broadcast_arrays, roll and
tile: graphs of existing ops, as PyTensor builds them (no op of their own, so no C of their own).
"""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Variable
from opkit.core.tensor.elementwise.basic import maximum
from opkit.core.tensor.elementwise.logic import eq, switch
from opkit.core.tensor.shapes.alloc import alloc, shape_dims
from opkit.core.tensor.shapes.creation import _dims
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.shapes.reshape import flatten
from opkit.core.tensor.shapes.shape_ops import shape
from opkit.core.tensor.shapes.subtensor import subtensor
from opkit.core.tensor.types.shape_checks import check_chain
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def normalize_axis(axis, ndim, what, name="axis"):
    """Return `axis` in [0, ndim) (negative counts from the end), or raise numpy's AxisError naming the argument."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{what}: {name} must be an integer, got {axis!r}")
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim, f"{what}: {name}")
    return axis % ndim


def normalize_axes(axes, ndim, what, name="axis"):
    """Return the int or sequence `axes` as a tuple of distinct axes in [0, ndim); ValueError if one repeats."""
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    result = tuple(normalize_axis(a, ndim, what, name) for a in axes)
    if len(set(result)) != len(result):
        raise ValueError(f"{what}: repeated axis in {name} {axes}")
    return result


def expand_dims(a, axis):
    """Return `a` with length-1 axes inserted at `axis` (an int or a sequence: positions in the result)."""
    a = as_tensor_variable(a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if not axes:
        return a
    ndim = a.ndim + len(axes)
    axes = normalize_axes(axes, ndim, "expand_dims")
    source = iter(range(a.ndim))
    return a.dimshuffle(["x" if position in axes else next(source) for position in range(ndim)])


def squeeze(x, axis=None):
    """Return `x` without length-1 axes: those given, or (axis=None) those its type knows to be 1, as PyTensor.

    An axis given whose static length is unknown is checked when the graph runs, with numpy's error.
    """
    x = as_tensor_variable(x)
    if axis is None:
        axes = tuple(a for a, s in enumerate(x.type.shape) if s == 1)
    else:
        axes = normalize_axes(axis, x.ndim, "squeeze")
    if not axes:
        return x
    wrong = [a for a in axes if x.type.shape[a] not in (1, None)]
    if wrong:
        raise ValueError(f"squeeze: cannot select an axis to squeeze out which has size not equal to one "
                         f"(axis {wrong[0]} of {x} has length {x.type.shape[wrong[0]]})")
    # An axis of unknown length is indexed by its checked length minus 1 (0): numpy's error otherwise, and the
    # index, an input of Subtensor, leaves the gradient to x alone.
    dims = shape_dims(x)
    message = "cannot select an axis to squeeze out which has size not equal to one"
    index = [slice(None)] * (max(axes) + 1)
    for a in axes:
        index[a] = 0 if x.type.shape[a] == 1 else check_chain([("ValueError", message, "eq", dims[a], 1, ())]) - 1
    return subtensor(x, tuple(index))


def swapaxes(y, axis1, axis2):
    """Return `y` with axes `axis1` and `axis2` swapped (a view)."""
    y = as_tensor_variable(y)
    order = list(range(y.ndim))
    a1 = normalize_axis(axis1, y.ndim, "swapaxes", "axis1")
    a2 = normalize_axis(axis2, y.ndim, "swapaxes", "axis2")
    order[a1], order[a2] = order[a2], order[a1]
    return y.dimshuffle(order)


def moveaxis(a, source, destination):
    """Return `a` with the axes `source` moved to `destination`, the others in their order (numpy.moveaxis)."""
    a = as_tensor_variable(a)
    source = normalize_axes(source, a.ndim, "moveaxis", "source")
    destination = normalize_axes(destination, a.ndim, "moveaxis", "destination")
    if len(source) != len(destination):
        raise ValueError("moveaxis: `source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.dimshuffle(order)


def matrix_transpose(x):
    """Return `x` with its last two axes swapped (numpy.matrix_transpose, x.mT)."""
    x = as_tensor_variable(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least two dimensions, got {x} with {x.ndim}")
    return swapaxes(x, -1, -2)


def ravel(x):
    """Return `x` flattened to a vector in C order (numpy.ravel: a view where one is possible)."""
    return flatten(as_tensor_variable(x), 1)


def _dims_of(shape, what):
    """Return a shape (an int, ints and int scalars, or an int vector of known length) as int scalars."""
    return _dims(shape, what)


def broadcast_to(x, shape):
    """Return `x` broadcast to `shape` (numpy.broadcast_to; a new array, as PyTensor's alloc)."""
    x = as_tensor_variable(x)
    dims = _dims_of(shape, "broadcast_to")
    if len(dims) < x.ndim:
        raise ValueError(f"broadcast_to: the shape has {len(dims)} entries, fewer than the {x.ndim} dimensions "
                         f"of {x}")
    return alloc(x, *dims)


def broadcast_shape(*arrays):
    """Return numpy's broadcast shape of the tensors as int64 scalars (constants where the types know them)."""
    arrays = [as_tensor_variable(a) for a in arrays]
    ndim = max((a.ndim for a in arrays), default=0)
    result = []
    for axis in range(ndim):
        dims = [(a.type.shape[axis - ndim + a.ndim], shape_dims(a)[axis - ndim + a.ndim])
                for a in arrays if axis - ndim + a.ndim >= 0]
        known = {s for s, _ in dims if s is not None and s != 1}
        if len(known) > 1:
            raise ValueError(f"broadcast_arrays: shape mismatch: the arrays' lengths {sorted(known)} on axis "
                             f"{axis} (counted as in the result) cannot be broadcast together")
        if known and all(s is not None for s, _ in dims):
            result.append(constant(np.int64(known.pop())))
            continue
        if all(s == 1 for s, _ in dims):
            result.append(constant(np.int64(1)))
            continue
        length = None
        for static, dim in dims:
            if static == 1:
                continue
            length = dim if length is None else switch(eq(length, 1), dim, length)
        result.append(length)
    return result


def broadcast_arrays(*args):
    """Return the tensors broadcast against each other (numpy.broadcast_arrays), as a list."""
    arrays = [as_tensor_variable(a) for a in args]
    dims = broadcast_shape(*arrays)
    return [a if a.type.shape == tuple(_static(d) for d in dims) and None not in a.type.shape
            else alloc(a, *dims) for a in arrays]


def _static(dim):
    data = getattr(dim, "data", None)
    return None if data is None else int(data)


def roll(x, shift, axis=None):
    """Return `x` with its elements shifted by `shift` along `axis` (numpy.roll; axis=None: the flat array)."""
    x = as_tensor_variable(x)
    if axis is None:
        if x.ndim == 1:
            return roll(x, shift, 0)
        return roll(ravel(x), shift, 0).reshape(shape(x), ndim=x.ndim)
    shifts = shift if isinstance(shift, (list, tuple)) else [shift]
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift ({len(shifts)} entries) and axis ({len(axes)} entries) must have the same "
                         "length, or shift one entry")
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim, "roll")
        s = as_tensor_variable(s)
        if s.ndim != 0 or np.dtype(s.dtype).kind not in "iu":
            raise TypeError(f"roll: shift must be an integer or integer scalar, got {s} of type {s.type}")
        n = shape_dims(x)[a]
        s = s % maximum(n, 1)  # an empty axis rolls to itself (and no integer division by zero)
        before = (slice(None),) * a
        x = concatenate([subtensor(x, before + (slice(n - s, None),)),
                         subtensor(x, before + (slice(0, n - s),))], axis=a)
    return x


def tile(A, reps):
    """Return `A` repeated `reps` times along each axis (numpy.tile): an alloc of interleaved axes, reshaped."""
    A = as_tensor_variable(A)
    if isinstance(reps, Variable) and reps.ndim == 1:
        length = reps.type.shape[0]
        if length is None:
            raise ValueError(f"tile: the length of the reps vector {reps} must be known when the graph is built "
                             "(specify_shape it, or give a tuple)")
        reps = [reps[i] for i in range(length)]
    elif not isinstance(reps, (list, tuple)):
        reps = [reps]
    for r in reps:
        known_int = isinstance(r, (int, np.integer)) and not isinstance(r, bool)
        if not known_int and not (isinstance(r, Variable) and r.ndim == 0 and np.dtype(r.dtype).kind in "iu"):
            raise TypeError(f"tile: reps must be integers or integer scalars, got {r!r}")
    ndim = max(len(reps), A.ndim)
    reps = [1] * (ndim - len(reps)) + list(reps)
    A = A.dimshuffle(["x"] * (ndim - A.ndim) + list(range(A.ndim)))
    reps = [constant(np.int64(r)) if isinstance(r, (int, np.integer)) else r for r in reps]
    dims = shape_dims(A)
    spread = alloc(A.dimshuffle([p for a in range(ndim) for p in ("x", a)]),
                   *[d for pair in zip(reps, dims) for d in pair])
    return spread.reshape([r * d for r, d in zip(reps, dims)])




def atleast_Nd(arry, *, n=1, left=True):
    """Return `arry` with length-1 axes added on the left (or the right) up to `n` dimensions (PyTensor's)."""
    arry = as_tensor_variable(arry)
    if arry.ndim >= n:
        return arry
    added = ["x"] * (n - arry.ndim)
    return arry.dimshuffle(added + list(range(arry.ndim)) if left else list(range(arry.ndim)) + added)


def atleast_1d(arry):
    """Return `arry` with at least one dimension (numpy.atleast_1d of one array)."""
    return atleast_Nd(arry, n=1)


def atleast_2d(arry):
    """Return `arry` with at least two dimensions, new axes on the left (numpy.atleast_2d of one array)."""
    return atleast_Nd(arry, n=2)


def atleast_3d(arry):
    """Return `arry` with at least three dimensions, new axes on the left (PyTensor's: numpy pads 1-d both sides)."""
    return atleast_Nd(arry, n=3)


__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "atleast_Nd", "broadcast_arrays", "broadcast_shape",
           "broadcast_to", "expand_dims", "matrix_transpose", "moveaxis", "ravel", "roll", "squeeze", "swapaxes",
           "tile"]

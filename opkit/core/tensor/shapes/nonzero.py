"""nonzero, flatnonzero, nonzero_values, compress and the triangle indices (tril_indices, triu_indices, ..._from).

The coordinates come from MaskNonzero (mask_index.py, numpy.nonzero in perform); the rest are graphs.
"""

from __future__ import annotations

from opkit.core.tensor.elementwise.logic import invert, neq
from opkit.core.tensor.shapes.alloc import shape_dims
from opkit.core.tensor.shapes.axes import ravel
from opkit.core.tensor.shapes.filled import tri
from opkit.core.tensor.shapes.join import stack
from opkit.core.tensor.shapes.mask_index import MaskNonzero
from opkit.core.tensor.shapes.repeat_take import take
from opkit.core.tensor.types.variable import as_tensor_variable


def nonzero(a, return_matrix=False):
    """Return the int64 coordinates of the nonzero elements of `a`, one vector per axis (numpy.nonzero).

    return_matrix: the vectors stacked as the rows of one matrix (PyTensor's).
    """
    a = as_tensor_variable(a)
    if a.ndim == 0:
        raise ValueError("nonzero: calling nonzero on a 0-d tensor is not allowed (numpy's rule); use atleast_1d")
    mask = a if a.dtype == "bool" else neq(a, 0)
    coordinates = MaskNonzero(0)(mask, *shape_dims(a))
    coordinates = coordinates if isinstance(coordinates, list) else [coordinates]
    return stack(coordinates) if return_matrix else tuple(coordinates)


def flatnonzero(a):
    """Return the int64 indices of the nonzero elements of `a` flattened (numpy.flatnonzero)."""
    return nonzero(ravel(a))[0]


def nonzero_values(a):
    """Return the nonzero elements of `a` flattened, in order (a[a != 0] of the flat array)."""
    a = as_tensor_variable(a)
    return take(ravel(a), flatnonzero(a), axis=0)


def compress(condition, x, axis=None):
    """Return the slices of `x` along `axis` where `condition` is nonzero (numpy.compress; axis=None: flattened)."""
    condition = as_tensor_variable(condition)
    if condition.ndim != 1:
        raise ValueError(f"compress: condition must be a vector, got {condition} with {condition.ndim} dimensions")
    return take(x, flatnonzero(condition), axis=axis)


def tril_indices(n, k=0, m=None):
    """Return the (rows, columns) int64 indices of the lower triangle of an n x m array (numpy.tril_indices)."""
    return nonzero(tri(n, m, k, dtype="bool"))


def triu_indices(n, k=0, m=None):
    """Return the (rows, columns) int64 indices of the upper triangle of an n x m array (numpy.triu_indices)."""
    return nonzero(invert(tri(n, m, k - 1, dtype="bool")))


def _matrix_dims(a, what):
    a = as_tensor_variable(a)
    if a.ndim != 2:
        raise ValueError(f"{what}: the input array must be 2-d, got {a} with {a.ndim} dimensions")
    return shape_dims(a)


def tril_indices_from(a, k=0):
    """Return the indices of the lower triangle of the matrix `a` (numpy.tril_indices_from)."""
    rows, columns = _matrix_dims(a, "tril_indices_from")
    return tril_indices(rows, k, columns)


def triu_indices_from(a, k=0):
    """Return the indices of the upper triangle of the matrix `a` (numpy.triu_indices_from)."""
    rows, columns = _matrix_dims(a, "triu_indices_from")
    return triu_indices(rows, k, columns)


__all__ = ["compress", "flatnonzero", "nonzero", "nonzero_values", "tril_indices", "tril_indices_from", "triu_indices",
           "triu_indices_from"]

"""take_along_axis(arr, indices, axis): numpy.take_along_axis, as an advanced index.

arr[i0, ..., indices, ..., iN] where each i_d is arange(arr.shape[d]) laid along axis d: the index arrays
broadcast together (numpy's rule), so indices may have length 1 where arr does not, and the other way round.
axis=None indexes arr flattened with a vector of indices. Its gradient is AdvancedSubtensor's (an add of the
output gradient into zeros at the indices, repeated indices accumulating).
"""

from __future__ import annotations

from opkit.core.builtin_ops import shape_op
from opkit.core.tensor.shapes.advanced_subtensor import AdvancedSubtensor, AdvancedSubtensor1, check_index_array
from opkit.core.tensor.shapes.creation import arange
from opkit.core.tensor.shapes.reshape import flatten
from opkit.core.tensor.types.variable import as_tensor_variable


def _normalized_axis(axis, ndim):
    import operator

    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"take_along_axis: axis {axis} is out of bounds for an array of dimension {ndim} "
                         "(numpy's AxisError)")
    return axis % ndim


def take_along_axis(arr, indices, axis=-1):
    """Return numpy.take_along_axis(arr, indices, axis): values of arr at `indices` along `axis`."""
    arr = as_tensor_variable(arr)
    indices = check_index_array(indices, "take_along_axis's indices")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"take_along_axis: when axis=None, `indices` must have a single dimension; "
                             f"{indices} has {indices.ndim}")
        return AdvancedSubtensor1()(flatten(arr, 1), indices)
    if arr.ndim == 0:
        raise ValueError("take_along_axis: arr must have at least one dimension (a 0-d arr has no axis)")
    if indices.ndim != arr.ndim:
        raise ValueError(f"take_along_axis: `indices` and `arr` must have the same number of dimensions "
                         f"(numpy's rule): {indices.ndim} and {arr.ndim}")
    axis = _normalized_axis(axis, arr.ndim)
    sizes = shape_op(arr)
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
            continue
        length = arr.type.shape[d] if arr.type.shape[d] is not None else sizes[d]
        index.append(arange(length, dtype="int64").dimshuffle(*[0 if k == d else "x" for k in range(arr.ndim)]))
    return AdvancedSubtensor(["array"] * arr.ndim)(arr, *index)

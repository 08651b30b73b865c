"""x[index] for any numpy index: integers, slices, None, ..., integer arrays and boolean masks.

The index is read as numpy reads it, in this order:
1. `...` stands for as many full slices as the axes the rest does not name (one at most);
2. `None` adds a length-1 axis: the new axes are inserted first (a DimShuffle tagged NEW_AXES_TAG) and
   indexed with ``:``, as PyTensor does, so an advanced index keeps numpy's placement rule and a write
   (set_subtensor of x[None, 1:]) reaches x;
3. a boolean mask stands for the integer arrays of its nonzero (mask_index.py);
4. integers and slices alone are basic indexing (Subtensor, a view); with an integer array anywhere,
   integers count as 0-d arrays, and the index is AdvancedSubtensor1 (one integer vector on axis 0) or
   AdvancedSubtensor.
Python bools (x[True], x[[True, False]]) are refused, as PyTensor refuses them: a numpy bool array is a mask.
A float (x[1.5], x[np.array([0.5])]) is refused, as numpy refuses it.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.graph import Variable
from opkit.core.tensor.shapes.advanced_subtensor import NOT_INTEGER, AdvancedSubtensor, AdvancedSubtensor1
from opkit.core.tensor.shapes.alloc import expand_dims
from opkit.core.tensor.shapes.inc_subtensor import inc_subtensor
from opkit.core.tensor.shapes.index_values import index_input
from opkit.core.tensor.shapes.mask_index import mask_coordinates
from opkit.core.tensor.shapes.subtensor import NEW_AXES_TAG, parse_index, subtensor
from opkit.core.tensor.types.variable import as_tensor_variable


def _is_full(part):
    return isinstance(part, slice) and part.start is None and part.stop is None and part.step is None


def _kind(part):
    """'none', 'ellipsis', 'slice', 'int' (an integer scalar), 'bool' (a Python or numpy bool: numpy's 0-d mask),
    'mask' (a bool array) or 'array'."""
    if part is None:
        return "none"
    if isinstance(part, (bool, np.bool_)):
        return "bool"
    if part is Ellipsis:
        return "ellipsis"
    if isinstance(part, slice):
        return "slice"
    if isinstance(part, Variable):
        variable = as_tensor_variable(part)
        if variable.ndim == 0:  # an integer scalar; Subtensor's index_input refuses any other 0-d tensor
            return "int"
        return "mask" if variable.dtype == "bool" else "array"
    if np.ndim(part) == 0:  # Python and numpy scalars: index_input reads an integer, refuses bools and floats
        return "int"
    data = np.asarray(part)
    if isinstance(part, (list, tuple)) and data.dtype == bool and data.size:
        raise TypeError("a list of Python bools in an index (x[[True, False]]) is not supported: for a boolean "
                        "mask, convert it to a numpy array first (x[np.array([True, False])])")
    if data.dtype == bool:
        return "mask"
    if data.dtype.kind not in "iu" and not (data.size == 0 and data.dtype.kind == "f"):
        raise IndexError(f"{NOT_INTEGER}; got {part!r:.60} of dtype {data.dtype}")
    return "array"


def _array(part):
    """An integer index array as a tensor (an empty list is an empty intp array, as numpy reads it)."""
    if isinstance(part, Variable):
        return as_tensor_variable(part)
    data = np.asarray(part)
    return as_tensor_variable(data.astype(np.int64) if data.size == 0 else data)


def _expand_none(x, parts):
    """Return (x with the new axes of the index's None entries, the index with ``:`` in their place)."""
    axes, position = [], 0
    for part, kind in parts:
        if kind == "none":
            axes.append(position)
        position += np.ndim(part) if kind == "mask" and not isinstance(part, Variable) else \
            (part.ndim if kind == "mask" else 1)
    expanded = expand_dims(x, axes)
    expanded.tag[NEW_AXES_TAG] = tuple(axes)
    return expanded, [(slice(None), "slice") if kind == "none" else (p, kind) for p, kind in parts]


def index_tensor(x, index):
    """Return x[index] for any numpy index (see the module's docstring)."""
    x = as_tensor_variable(x)
    entries = index if isinstance(index, tuple) else (index,)
    entries = [p[()] if isinstance(p, np.ndarray) and p.ndim == 0 else p for p in entries]  # np.array(2): 2
    parts = [(p, _kind(p)) for p in entries]
    ellipses = [k for k, (_, kind) in enumerate(parts) if kind == "ellipsis"]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    named = sum((np.ndim(p) if not isinstance(p, Variable) else p.ndim) if kind == "mask" else 1
                for p, kind in parts if kind not in ("none", "ellipsis", "bool"))  # a bool takes no axis
    if named > x.ndim:
        raise IndexError(f"too many indices: {named} given for a {x.ndim}-d tensor")
    if ellipses:
        k = ellipses[0]
        parts[k:k + 1] = [(slice(None), "slice")] * (x.ndim - named)
    empty = _scalar_bools(parts)  # a bool is a None now; False's new axis is sliced empty below
    if any(kind == "none" for _, kind in parts):
        x, parts = _expand_none(x, parts)
        for k in empty:
            parts[k] = (slice(0, 0), "slice")
        if all(_is_full(p) for p, _ in parts):
            return x
    if not parts:  # x[...] or x[()]: all of x
        return x
    if not any(kind in ("mask", "array") for _, kind in parts):
        return subtensor(x, tuple(p for p, _ in parts))
    return _advanced(x, parts)


def getitem(x, index):
    """Return x[index] (the tensor's operator): index_tensor, but x.shape[i] of an int i >= 0 is Shape_i(i)(x)."""
    owner = getattr(x, "owner", None)
    if owner is not None and isinstance(owner.op, Shape) and isinstance(index, (int, np.integer)) \
            and not isinstance(index, bool) and index >= 0:
        source = owner.inputs[0]
        if source.type.ndim is not None and index >= source.type.ndim:
            raise IndexError(f"{source} has {source.type.ndim} dimensions; no shape[{index}]")
        return Shape_i(int(index))(source)
    return index_tensor(x, index)


def _scalar_bools(parts):
    """Read x[..., True, ...] as numpy: a new axis of length 1 (True) or 0 (False) where the bool stands.

    numpy reads a scalar bool as a 0-d mask, an advanced index. With no other integer, array or bool in the index
    that is exactly a None (True), then an empty slice of the new axis (False). Beside an integer, an array or
    another bool numpy broadcasts them together and may move the result's axes: refused rather than guessed.
    Puts a None in each bool's place (in `parts`) and returns the places of the False ones."""
    bools = [k for k, (_, kind) in enumerate(parts) if kind == "bool"]
    if not bools:
        return []
    others = [kind for _, kind in parts if kind in ("int", "array", "mask")] + ["bool"] * (len(bools) - 1)
    if others:
        raise IndexError("a Python or numpy bool in an index beside an integer, an integer array, a mask or a bool "
                         f"(numpy's 0-d boolean mask) is not supported; got one beside {len(others)} such "
                         "index(es): index with None (True) or an empty slice of a new axis (False) instead")
    empty = [k for k in bools if not parts[k][0]]
    for k in bools:
        parts[k] = (None, "none")
    return empty


def _advanced(x, parts):
    """x[index] for an index with at least one integer array or mask (after ... and None are resolved)."""
    idx_list, inputs, axis = [], [], 0
    for part, kind in parts:
        if kind == "mask":
            coordinates = mask_coordinates(part, x, axis)
            idx_list.extend(["array"] * len(coordinates))
            inputs.extend(coordinates)
            axis += len(coordinates)
            continue
        if kind == "slice":
            entry, bounds = parse_index(part, 1)
            idx_list.append(entry[0])
            inputs.extend(bounds)
        elif kind == "int":
            inputs.append(part if isinstance(part, Variable) else index_input(part, f"index on axis {axis}",
                                                                              axis, bound=False))
            idx_list.append("array")
        else:
            inputs.append(_array(part))
            idx_list.append("array")
        axis += 1
    while idx_list and idx_list[-1] == ("slice", False, False, False):
        idx_list.pop()
    if idx_list == ["array"] and inputs[0].ndim == 1:
        return AdvancedSubtensor1()(x, inputs[0])
    return AdvancedSubtensor(idx_list)(x, *inputs)


def advanced_subtensor1(x, idx):
    """Return x[idx] for an integer vector idx on axis 0 (PyTensor's advanced_subtensor1)."""
    return AdvancedSubtensor1()(x, idx)


def advanced_subtensor(x, *index):
    """Return x[index] for an index with integer arrays or boolean masks among its entries (PyTensor's
    advanced_subtensor): ``advanced_subtensor(x, idx, slice(1, None))`` is ``x[idx, 1:]``."""
    return index_tensor(x, tuple(index))


def advanced_inc_subtensor(x, y, *index, set_instead_of_inc=False, inplace=False, ignore_duplicates=False):
    """Return x with x[index] incremented by y (repeated indices accumulate, as numpy.add.at), or set to y."""
    return inc_subtensor(index_tensor(x, tuple(index)), y, inplace, set_instead_of_inc,
                         ignore_duplicates=ignore_duplicates)


def advanced_set_subtensor(x, y, *index, inplace=False):
    """Return x with x[index] set to y (numpy's ``r[index] = y``: the last write of a repeated index wins)."""
    return advanced_inc_subtensor(x, y, *index, set_instead_of_inc=True, inplace=inplace)


def advanced_inc_subtensor1(x, y, idx, ignore_duplicates=False):
    """Return x with x[idx] incremented by y, idx an integer vector on axis 0 (numpy.add.at)."""
    return advanced_inc_subtensor(x, y, as_tensor_variable(idx), ignore_duplicates=ignore_duplicates)


def advanced_set_subtensor1(x, y, idx):
    """Return x with x[idx] set to y, idx an integer vector on axis 0 (the last write of an index wins)."""
    return advanced_inc_subtensor(x, y, as_tensor_variable(idx), set_instead_of_inc=True)

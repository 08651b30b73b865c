"""Advanced (integer-array) indexing: x[idx], x[idx, 1:, jdx], as numpy's.

- AdvancedSubtensor1: x[idx] with an integer vector idx on axis 0 (PyTensor's op of that name), C in
  advanced_subtensor.c (numpy's take after opkit_index_array reads the index).
- AdvancedSubtensor: integer arrays on several axes mixed with slices, by numpy's rules: the arrays
  broadcast together; the broadcast dimensions replace the indexed axes where the arrays are adjacent, and
  go first where a slice separates them. Its `idx_list` has one entry per indexed axis: "array" (an integer
  tensor input of any ndim; an integer scalar among arrays is a 0-d array, as numpy reads it) or Subtensor's
  ("slice", start?, stop?, step?). perform is numpy's indexing.

Every integer dtype indexes; negative indices count from the end; an index out of range raises numpy's
IndexError naming it; a uint64 of 2**63 or more is out of range (numpy's cast would wrap it to a negative
index: ours never does). Boolean masks become integer arrays through their nonzero (mask_index.py).
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.graph import Apply, Constant
from opkit.core.gradient_registry import registered
from opkit.core.op import Op
from opkit.core.tensor.shapes.index_values import INTP_MAX
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

NOT_INTEGER = "arrays used as indices must be of integer (or boolean) type"


def index_array(values, axis, length):
    """The integer array `values` as an intp array of indices on an axis of `length` (negatives wrapped).

    Raise numpy's IndexError naming the first index out of range in C order; a uint64 beyond npy_intp is
    out of range. The C twin is opkit_index_array (opkit_index_array.h).
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        raise IndexError(NOT_INTEGER)
    flat = values.ravel()
    bad = (flat > INTP_MAX) if values.dtype == np.uint64 else np.zeros(flat.shape, bool)
    signed = flat.astype(np.intp, copy=False) if values.dtype != np.uint64 else \
        np.where(bad, 0, flat).astype(np.intp)
    bad |= (signed < -length) | (signed >= length)
    if bad.any():
        first = int(np.argmax(bad))
        raise IndexError(f"index {int(flat[first])} is out of bounds for axis {axis} with size {length}")
    return np.where(signed < 0, signed + length, signed).reshape(values.shape)


def check_index_array(variable, what):
    """Return `variable` as an integer tensor for an index, or numpy's IndexError for another dtype."""
    variable = as_tensor_variable(variable)
    if np.dtype(variable.dtype).kind not in "iu":
        raise IndexError(f"{NOT_INTEGER}; {what} is {variable} of dtype {variable.dtype}")
    return variable


def shape_text(shape):
    """A shape as numpy's index errors write it: (2,3), (4,), ()."""
    inner = ",".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def broadcast_index_shapes(shapes):
    """numpy's broadcast of the index arrays' shapes (None: unknown), or its IndexError for shapes that clash."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(ndim):
        dims = [s[len(s) - ndim + k] for s in shapes if len(s) - ndim + k >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                             + "".join(shape_text(s) + " " for s in shapes))
        out.append(known.pop() if known else (1 if all(d == 1 for d in dims) else None))
    return tuple(out)


def indexed_shape(idx_list, x_shape, array_shapes, slice_lengths):
    """The shape of x[index] by numpy's rule: the broadcast index dimensions where the arrays are adjacent,
    first where a slice separates them; then the axes the index leaves."""
    arrays = [k for k, entry in enumerate(idx_list) if entry == "array"]
    broadcast = broadcast_index_shapes(array_shapes)
    adjacent = arrays == list(range(arrays[0], arrays[-1] + 1)) if arrays else True
    out, lengths = [], iter(slice_lengths)
    for k, entry in enumerate(idx_list):
        if entry == "array":
            if adjacent and k == arrays[0]:
                out.extend(broadcast)
            continue
        out.append(next(lengths))
    if not adjacent:
        out = list(broadcast) + out
    return tuple(out) + tuple(x_shape[len(idx_list):])


def numpy_index(idx_list, x_shape, values):
    """The numpy index tuple of `idx_list` given its inputs' values: arrays read by index_array (after numpy's
    check that they broadcast together), slice bounds as Python ints."""
    values = list(values)
    arrays, index, position = [], [], 0
    for entry in idx_list:
        if entry == "array":
            arrays.append(np.asarray(values[position]))
            position += 1
        else:
            position += sum(entry[1:])
    broadcast_index_shapes([a.shape for a in arrays])
    position = 0
    for axis, entry in enumerate(idx_list):
        if entry == "array":
            index.append(index_array(values[position], axis, x_shape[axis]))
            position += 1
        else:
            given = entry[1:]
            parts = iter(values[position:position + sum(given)])
            index.append(slice(*[int(next(parts)) if g else None for g in given]))
            position += sum(given)
    return tuple(index)


def result_shape(idx_list, x_shape, index):
    """The shape of x[index] for the numpy index tuple `index` of `idx_list` (numpy_index's result)."""
    arrays = [np.shape(i) for i in index if not isinstance(i, slice)]
    lengths = [len(range(*i.indices(x_shape[axis]))) for axis, i in enumerate(index) if isinstance(i, slice)]
    return indexed_shape(idx_list, x_shape, arrays, lengths)


def _slice_length(entry, inputs, length):
    """The static length of a slice entry whose bounds are `inputs`, or None."""
    if length is None or not all(isinstance(i, Constant) for i in inputs):
        return None
    parts = iter(int(i.data) for i in inputs)
    bounds = slice(*[next(parts) if g else None for g in entry[1:]])
    if bounds.step == 0:
        raise ValueError("slice step cannot be zero")
    return len(range(*bounds.indices(length)))


def static_indexed_shape(idx_list, x, index_inputs):
    """The static shape of x[index] (None where known only at run time), numpy's errors for what is known."""
    array_shapes, slice_lengths, position = [], [], 0
    for axis, entry in enumerate(idx_list):
        if entry == "array":
            i = index_inputs[position]
            array_shapes.append(static_shape_of(i))
            length = x.type.shape[axis]
            if isinstance(i, Constant) and length is not None:
                index_array(i.data, axis, length)
            position += 1
        else:
            count = sum(entry[1:])
            slice_lengths.append(_slice_length(entry, index_inputs[position:position + count], x.type.shape[axis]))
            position += count
    return indexed_shape(idx_list, x.type.shape, array_shapes, slice_lengths)


def static_shape_of(variable):
    """The static shape of `variable`: its data's for a constant (a constant's type states only its 1s)."""
    return np.shape(variable.data) if isinstance(variable, Constant) else variable.type.shape


def check_index_list(op, idx_list, x, index_inputs):
    """Raise unless `index_inputs` fit `idx_list` on x: integer arrays, integer scalar slice bounds."""
    if len(idx_list) > x.ndim:
        raise IndexError(f"too many indices: {len(idx_list)} given for a {x.ndim}-d tensor")
    expected = sum(1 if e == "array" else sum(e[1:]) for e in idx_list)
    if len(index_inputs) != expected:
        raise ValueError(f"{op} takes {expected} index inputs (one per array and per given slice bound), "
                         f"got {len(index_inputs)}")
    position = 0
    for axis, entry in enumerate(idx_list):
        if entry == "array":
            check_index_array(index_inputs[position], f"the index on axis {axis}")
            position += 1
            continue
        for bound in index_inputs[position:position + sum(entry[1:])]:
            if bound.ndim != 0 or np.dtype(bound.dtype).kind not in "iu":
                raise TypeError(f"{op}: a slice bound on axis {axis} must be an integer scalar, got {bound}")
        position += sum(entry[1:])


def _index_text(idx_list):
    return ", ".join("[]" if e == "array" else ":".join("v" if g else "" for g in e[1:]) for e in idx_list)


class AdvancedSubtensor1(SectionOp):
    """x[idx] for an integer vector idx on axis 0: numpy's take (PyTensor's AdvancedSubtensor1).

    C: advanced_subtensor.c (opkit_index_array.h reads the index, every integer dtype).
    """

    __props__ = ()
    section_files = ("advanced_subtensor.c",)

    def make_node(self, x, idx):
        x = as_tensor_variable(x)
        idx = check_index_array(idx, "the index on axis 0")
        if x.ndim == 0:
            raise IndexError(f"too many indices: 1 given for a 0-d tensor ({x})")
        if idx.ndim != 1:
            raise TypeError(f"AdvancedSubtensor1 takes an integer vector index, got {idx} with {idx.ndim} dimensions")
        if isinstance(idx, Constant) and x.type.shape[0] is not None:
            index_array(idx.data, 0, x.type.shape[0])
        return Apply(self, [x, idx], [TensorType(x.dtype, (static_shape_of(idx)[0], *x.type.shape[1:]))()])

    def perform(self, node, inputs, output_storage):
        x, idx = inputs
        output_storage[0][0] = np.take(x, index_array(idx, 0, x.shape[0]), axis=0)

    def infer_shape(self, node, input_shapes):
        return [(input_shapes[1][0], *input_shapes[0][1:])]

    def shape_checks(self, node, input_shapes):
        return [IndicesInRange(0)(node.inputs[1], input_shapes[0][0])]

    def connection_pattern(self, node):
        return [[True], [False]]

    grad = registered("grad")  # gradients/advanced_grad.py: an AdvancedIncSubtensor1 of zeros

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]

    def __str__(self):
        return "AdvancedSubtensor1"


class AdvancedSubtensor(Op):
    """x[index] with integer arrays on one or more axes, slices on others (numpy's advanced indexing).

    perform is numpy's indexing; x[idx] on axis 0 alone is AdvancedSubtensor1, which has C.
    """

    __props__ = ("idx_list",)

    def __init__(self, idx_list):
        self.idx_list = tuple(e if e == "array" else tuple(e) for e in idx_list)

    def make_node(self, x, *index_inputs):
        x = as_tensor_variable(x)
        index_inputs = [as_tensor_variable(i) for i in index_inputs]
        check_index_list(self, self.idx_list, x, index_inputs)
        shape = static_indexed_shape(self.idx_list, x, index_inputs)
        return Apply(self, [x, *index_inputs], [TensorType(x.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x, *values = inputs
        output_storage[0][0] = np.asarray(x[numpy_index(self.idx_list, x.shape, values)])

    def connection_pattern(self, node):
        return [[True]] + [[False] for _ in node.inputs[1:]]

    grad = registered("grad")  # gradients/advanced_grad.py: an AdvancedIncSubtensor of zeros

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]

    def __str__(self):
        return "AdvancedSubtensor{" + _index_text(self.idx_list) + "}"


class IndicesInRange(Op):
    """The integer array idx itself once every index fits an axis of length n, else numpy's IndexError.

    The check AdvancedSubtensor1's and AdvancedIncSubtensor1's shapes keep (shape_checks)."""

    __props__ = ("axis",)
    view_map = {0: [0]}

    def __init__(self, axis):
        self.axis = int(axis)

    def make_node(self, idx, length):
        idx, length = as_tensor_variable(idx), as_tensor_variable(length)
        return Apply(self, [idx, length], [idx.type()])

    def perform(self, node, inputs, output_storage):
        idx, length = inputs
        index_array(idx, self.axis, int(length))
        output_storage[0][0] = idx

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]

    def __str__(self):
        return f"IndicesInRange{{axis={self.axis}}}"

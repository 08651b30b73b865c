"""set_subtensor / inc_subtensor of an advanced index: x with x[idx] set to y, or incremented by y.

- AdvancedIncSubtensor1: the index is an integer vector on axis 0 (PyTensor's op of that name), C in
  advanced_inc_subtensor.c.
- AdvancedIncSubtensor: AdvancedSubtensor's `idx_list` (arrays on several axes, slices); perform is numpy's.

A set is numpy's ``r[idx] = y``: where an index repeats, the last write wins. An increment accumulates
repeated indices as ``numpy.add.at`` does (PyTensor's default); `ignore_duplicates` gives numpy's buffered
``r[idx] += y`` instead (one write per repeated index). y broadcasts into x[idx] (numpy's ValueError when it
does not) and is cast as IncSubtensor casts it (inc_subtensor.value_of). The result is a new tensor (x itself
with inplace=True, which declares a destroy_map).
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.shapes.advanced_subtensor import (AdvancedSubtensor, AdvancedSubtensor1, IndicesInRange,
                                                         _index_text, check_index_array, check_index_list,
                                                         index_array, numpy_index, result_shape, shape_text,
                                                         static_indexed_shape, static_shape_of)
from opkit.core.tensor.shapes.write_values import value_of
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.variable import as_tensor_variable


def value_fits(value_shape, target_shape):
    """Raise numpy's ValueError unless a value of `value_shape` broadcasts into the indexing result's shape."""
    offset = len(target_shape) - len(value_shape)
    if any(v != 1 and (offset + k < 0 or v != target_shape[offset + k]) for k, v in enumerate(value_shape)):
        raise ValueError(f"shape mismatch: value array of shape {shape_text(value_shape)} could not be broadcast "
                         f"to indexing result of shape {shape_text(target_shape)}")


def _static_value_check(op, y, selected):
    """numpy's ValueError at build time for a y whose static shape cannot fit x[idx]'s."""
    if y.ndim > len(selected):
        raise ValueError(f"{op}: cannot put a {y.ndim}-d y into x[idx], which has {len(selected)} dimensions "
                         "(y may have fewer dimensions, broadcast as numpy does, never more)")
    offset = len(selected) - y.ndim
    if any(v is not None and v != 1 and selected[offset + k] is not None and v != selected[offset + k]
           for k, v in enumerate(y.type.shape)):
        raise ValueError(f"shape mismatch: value array of shape {shape_text(y.type.shape)} could not be broadcast "
                         f"to indexing result of shape {shape_text(selected)}")


def write(out, idx_list, index, y, set_instead_of_inc, ignore_duplicates):
    """out[index] = y, out[index] += y, or numpy.add.at(out, index, y), after numpy's check that y fits."""
    value_fits(np.shape(y), result_shape(idx_list, out.shape, index))
    if set_instead_of_inc:
        out[index] = y
    elif ignore_duplicates:
        out[index] += y
    else:
        np.add.at(out, index, y)


@functools.lru_cache(maxsize=None)
def _params():
    """AdvancedIncSubtensor1's params type, made when one is first compiled (importing builds none)."""
    int8 = SCALAR_TYPES["int8"]
    return ParamsType(inplace=int8, set_instead_of_inc=int8, ignore_duplicates=int8)


class _WriteOp:
    """What the two advanced writes share: their flags, destroy_map and name."""

    def _init_flags(self, inplace, set_instead_of_inc, ignore_duplicates):
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.ignore_duplicates = bool(ignore_duplicates)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def _name(self, kind, index_text):
        flags = "".join([", inplace" if self.inplace else "", ", ignore_duplicates" if self.ignore_duplicates
                         and not self.set_instead_of_inc else ""])
        return ("AdvancedSet" if self.set_instead_of_inc else "AdvancedInc") + kind + "{" + index_text + flags + "}"

    def connection_pattern(self, node):
        return [[True], [True]] + [[False] for _ in node.inputs[2:]]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]


class AdvancedIncSubtensor1(_WriteOp, SectionOp):
    """x with x[idx] set to y or incremented by y, idx an integer vector on axis 0. Inputs: x, y, idx.

    C: advanced_inc_subtensor.c (opkit_index_array.h reads the index, every integer dtype).
    """

    __props__ = ("inplace", "set_instead_of_inc", "ignore_duplicates")
    section_files = ("advanced_inc_subtensor.c",)

    def __init__(self, inplace=False, set_instead_of_inc=False, ignore_duplicates=False):
        self._init_flags(inplace, set_instead_of_inc, ignore_duplicates)

    @property
    def params_type(self):
        return _params()

    def make_node(self, x, y, idx):
        x = as_tensor_variable(x)
        idx = check_index_array(idx, "the index on axis 0")
        if x.ndim == 0:
            raise IndexError(f"too many indices: 1 given for a 0-d tensor ({x})")
        if idx.ndim != 1:
            raise TypeError(f"{self} takes an integer vector index, got {idx} with {idx.ndim} dimensions")
        y = value_of(x.dtype, y, self.set_instead_of_inc)
        _static_value_check(self, y, (static_shape_of(idx)[0], *x.type.shape[1:]))
        return Apply(self, [x, y, idx], [x.type()])

    def perform(self, node, inputs, output_storage, params=None):
        x, y, idx = inputs
        out = x if self.inplace else x.copy()
        index = (index_array(idx, 0, x.shape[0]),)
        write(out, ("array",), index, y, self.set_instead_of_inc, self.ignore_duplicates)
        output_storage[0][0] = out

    def shape_checks(self, node, input_shapes):
        x, y, idx = node.inputs
        selected = (input_shapes[2][0], *input_shapes[0][1:])
        return [IndicesInRange(0)(idx, input_shapes[0][0]), check_chain(value_checks(input_shapes[1], selected))]

    grad = registered("grad")  # gradients/advanced_grad.py

    def __str__(self):
        return self._name("Subtensor1", "[]")


class AdvancedIncSubtensor(_WriteOp, Op):
    """x with x[index] set to y or incremented by y; index as AdvancedSubtensor's `idx_list`.

    Inputs: x, y, then the index's arrays and slice bounds. perform is numpy's (numpy.add.at for an increment).
    """

    __props__ = ("idx_list", "inplace", "set_instead_of_inc", "ignore_duplicates")

    def __init__(self, idx_list, inplace=False, set_instead_of_inc=False, ignore_duplicates=False):
        self.idx_list = tuple(e if e == "array" else tuple(e) for e in idx_list)
        self._init_flags(inplace, set_instead_of_inc, ignore_duplicates)

    def make_node(self, x, y, *index_inputs):
        x = as_tensor_variable(x)
        index_inputs = [as_tensor_variable(i) for i in index_inputs]
        check_index_list(self, self.idx_list, x, index_inputs)
        y = value_of(x.dtype, y, self.set_instead_of_inc)
        _static_value_check(self, y, static_indexed_shape(self.idx_list, x, index_inputs))
        return Apply(self, [x, y, *index_inputs], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y, *values = inputs
        out = x if self.inplace else x.copy()
        index = numpy_index(self.idx_list, x.shape, values)
        write(out, self.idx_list, index, y, self.set_instead_of_inc, self.ignore_duplicates)
        output_storage[0][0] = out

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # numpy's checks of the whole index: running the op makes them

    grad = registered("grad")  # gradients/advanced_grad.py

    def __str__(self):
        return self._name("Subtensor", _index_text(self.idx_list))


def value_checks(value_dims, target_dims):
    """Checks that y of `value_dims` broadcasts into x[idx] of `target_dims` (for check_chain), numpy's message."""
    template = (f"shape mismatch: value array of shape {shape_template(len(value_dims), ',')} could not be "
                f"broadcast to indexing result of shape {shape_template(len(target_dims), ',')}")
    args = (*value_dims, *target_dims)
    offset = len(target_dims) - len(value_dims)
    return [("ValueError", template, "eq", v, 1, args) if offset + k < 0 else
            ("ValueError", template, "broadcasts", v, target_dims[offset + k], args)
            for k, v in enumerate(value_dims)]


def advanced_write(x, y, inplace, set_instead_of_inc, ignore_duplicates):
    """The write of y into the tensor the advanced index `x` (x[idx], x[idx, 1:], x[mask]) was taken from, or
    None when x is no result of advanced indexing."""
    owner = x.owner
    if owner is not None and isinstance(owner.op, AdvancedSubtensor1):
        source, idx = owner.inputs
        return AdvancedIncSubtensor1(inplace, set_instead_of_inc, ignore_duplicates)(source, y, idx)
    if owner is not None and isinstance(owner.op, AdvancedSubtensor):
        source, *index_inputs = owner.inputs
        op = AdvancedIncSubtensor(owner.op.idx_list, inplace, set_instead_of_inc, ignore_duplicates)
        return op(source, y, *index_inputs)
    return None

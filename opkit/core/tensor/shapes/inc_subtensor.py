"""set_subtensor(x[index], y) and inc_subtensor(x[index], y): x with x[index] set to y, or incremented by y.

PyTensor's IncSubtensor for basic indexing (integers and slices, Subtensor's `idx_list`): the result
is a new tensor (x itself only with inplace=True, which declares a destroy_map: opkit then copies x
first wherever x is the caller's or is read elsewhere). y is broadcast to x[index]'s shape and cast
as numpy's ``r[index] = y`` and ``r[index] += y`` cast it: a set casts any dtype (complex into real
warns and drops the imaginary part, as numpy does); an add refuses, when the graph is built, a y whose
sum with x numpy would not cast back to x's dtype ('same_kind'). A Python number is converted as
numpy converts it (an int that does not fit raises OverflowError). The index is read as Subtensor reads
it (index_values.py; in C subtensor.c's opkit_index_values), whatever the integer dtype of its inputs.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape_i, shape_op
from opkit.core.c_source import SectionOp, render
from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply
from opkit.core.tensor.shapes.advanced_inc_subtensor import advanced_write
from opkit.core.tensor.shapes.index_values import check_index_inputs
from opkit.core.tensor.shapes.subtensor import (NEW_AXES_TAG, Subtensor, _static_shape, build_index, index_kinds,
                                                parse_index, subtensor, write_checks)
from opkit.core.tensor.shapes.write_values import value_of
from opkit.core.tensor.types.shape_checks import broadcast_into_error
from opkit.core.tensor.types.variable import as_tensor_variable


def _shape_text(shape):
    """A static shape as numpy's broadcast errors write it, '?' where unknown."""
    inner = ",".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


class IncSubtensor(SectionOp):
    """x with x[index] set to y (set_instead_of_inc) or incremented by y; index as Subtensor's `idx_list`.

    Inputs: x, y, then the integer scalars of the index. C: subtensor.c's index walk, inc_subtensor.c
    and the macro `inc_subtensor` of templates/inc_subtensor.c.j2.
    """

    __props__ = ("idx_list", "inplace", "set_instead_of_inc", "destroyhandler_tolerate_aliased")
    section_files = ("subtensor.c", "inc_subtensor.c")

    def __init__(self, idx_list, inplace=False, set_instead_of_inc=False, destroyhandler_tolerate_aliased=None):
        self.idx_list = tuple(e if e == "int" else tuple(e) for e in idx_list)
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.destroyhandler_tolerate_aliased = tuple(tuple(p) for p in destroyhandler_tolerate_aliased or ())
        if self.inplace:
            self.destroy_map = {0: [0]}

    def make_node(self, x, y, *index_inputs):
        x = as_tensor_variable(x)
        if len(self.idx_list) > x.ndim:
            raise IndexError(f"too many indices: {len(self.idx_list)} given for a {x.ndim}-d tensor")
        y = value_of(x.dtype, y, self.set_instead_of_inc)
        index_inputs = [as_tensor_variable(i) for i in index_inputs]
        check_index_inputs(self, self.idx_list, index_inputs, after=" after x and y")
        selected = _static_shape(self.idx_list, index_inputs, x.type.shape)
        if y.ndim > len(selected):
            raise TypeError(f"{self}: cannot put a {y.ndim}-d y into x[index], which has {len(selected)} "
                            "dimensions (y may have fewer dimensions, broadcast as numpy does, never more)")
        offset = len(selected) - y.ndim
        if any(v is not None and v != 1 and selected[offset + k] is not None and v != selected[offset + k]
               for k, v in enumerate(y.type.shape)):
            raise ValueError(f"could not broadcast input array from shape {_shape_text(y.type.shape)} into "
                             f"shape {_shape_text(selected)} ({self}: y's static shape does not fit x[index])")
        return Apply(self, [x, y, *index_inputs], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y, *values = inputs
        out = x if self.inplace else x.copy()
        # The trailing ... keeps a 0-d selection an array viewing `out` (out[1] alone would be a numpy scalar).
        view = out[build_index(self.idx_list, values) + (Ellipsis,)]
        broadcast_into_error(np.shape(y), view.shape)
        if self.set_instead_of_inc:
            view[...] = y
        else:
            view += y
        output_storage[0][0] = out

    def has_c_code(self, node):
        return True  # the section files have its support code; the code comes from templates/inc_subtensor.c.j2

    def c_code(self, node, name, inputs, outputs, sub):
        x, y, *index_inputs = inputs
        return render("inc_subtensor.c.j2", "inc_subtensor", x=x, y=y, z=outputs[0], fail=sub["fail"],
                      inplace=self.inplace, set=self.set_instead_of_inc, kinds=index_kinds(self.idx_list),
                      scalars=index_inputs)

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        x, _, *index_inputs = node.inputs
        return [write_checks(self.idx_list, x, index_inputs, input_shapes[0], input_shapes[1])]

    def connection_pattern(self, node):
        return [[True], [True]] + [[False] for _ in node.inputs[2:]]

    grad = registered("grad")  # y's gradient sums broadcast axes back: gradients/shape_grad.py

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None and eval_points[1] is None:
            return [None]
        x, y, *index_inputs = inputs
        ex = x.zeros_like() if eval_points[0] is None else eval_points[0]
        ey = y.zeros_like() if eval_points[1] is None else eval_points[1]
        return [IncSubtensor(self.idx_list, set_instead_of_inc=self.set_instead_of_inc)(ex, ey, *index_inputs)]

    def __str__(self):
        parts = ["i" if e == "int" else ":".join("v" if g else "" for g in e[1:]) for e in self.idx_list]
        return ("SetSubtensor{" if self.set_instead_of_inc else "IncSubtensor{") + ", ".join(parts) + "}"


def _indexed(x, what):
    """Return (the indexed tensor, idx_list, index inputs) of `x`, the result of basic indexing."""
    x = as_tensor_variable(x)
    owner = x.owner
    if owner is not None and isinstance(owner.op, Subtensor):
        return owner.inputs[0], owner.op.idx_list, owner.inputs[1:]
    if owner is not None and isinstance(owner.op, Shape_i):  # x.shape[i]: index the shape vector
        idx_list, inputs = parse_index(owner.op.i, 1)
        return shape_op(owner.inputs[0]), idx_list, inputs
    if NEW_AXES_TAG in x.tag:
        return x, (), []  # x[None] alone: all of it, with its new axes
    raise TypeError(f"{what}: x must be the result of indexing a tensor with integers and slices, integer arrays "
                    f"or masks (x[1:, 2], x[idx], x[mask], x.shape[0]), got {x}"
                    + ("" if owner is None else f", a result of {owner.op}"))


def _without_new_axes(source, result):
    """`result` (shaped like `source`) without the axes x[None, ...] added to the tensor it indexed, if any."""
    new_axes = source.tag.get(NEW_AXES_TAG)
    if new_axes is None:
        return result
    return subtensor(result, tuple(0 if axis in new_axes else slice(None) for axis in range(result.ndim)))


def inc_subtensor(x, y, inplace=False, set_instead_of_inc=False, tolerate_inplace_aliasing=False,
                  ignore_duplicates=False):
    """Return the tensor x[index] was taken from, with x[index] incremented by y (numpy's ``r[index] += y``).

    `x` is the result of indexing (``v[1:, 0]``, ``v[None, 2]``, ``v[idx]``, ``v[mask]``); y broadcasts to its
    shape. `inplace` lets the result reuse v's memory (opkit copies v first where v is the caller's or read
    elsewhere); `tolerate_inplace_aliasing` is accepted for PyTensor's signature (opkit copies aliased memory).
    With an advanced index, a repeated index accumulates as numpy.add.at does, or, with `ignore_duplicates`,
    is written once as numpy's buffered ``r[idx] += y`` (a set: the last write wins).
    """
    what = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    x = as_tensor_variable(x)
    written = advanced_write(x, y, inplace, set_instead_of_inc, ignore_duplicates)
    if written is not None:
        return _without_new_axes(x.owner.inputs[0], written)
    source, idx_list, index_inputs = _indexed(x, what)
    tolerate = [[0, 1]] if tolerate_inplace_aliasing else []
    op = IncSubtensor(idx_list, inplace, set_instead_of_inc, destroyhandler_tolerate_aliased=tolerate)
    return _without_new_axes(source, op(source, y, *index_inputs))


def set_subtensor(x, y, inplace=False, tolerate_inplace_aliasing=False):
    """Return the tensor x[index] was taken from, with x[index] set to y (numpy's ``r[index] = y``)."""
    return inc_subtensor(x, y, inplace, set_instead_of_inc=True, tolerate_inplace_aliasing=tolerate_inplace_aliasing)

"""An integer as numpy reads it in a basic index: the one conversion of Subtensor's and IncSubtensor's index.

numpy reads an integer index as a C index (npy_intp) and a slice bound as a Python int:
- an integer index beyond npy_intp raises: OverflowError for 2**63 to 2**64 - 1 (numpy's
  ``x[np.uint64(2**63)]``), IndexError beyond those;
- a slice bound of any size is clamped to the axis, so ``x[np.uint64(2**64 - 1):]`` is empty and
  ``x[:2**70]`` is all of x. Clamping a bound to npy_intp first changes nothing (no axis is longer).

Here is that rule for Python: `index_int` and `bound_int` for the values of index inputs (perform) and
`index_input` for the integers of a Python index (the graph's constants). Its C twin is opkit_index_value
in subtensor.c: never a C cast, so no uint64 wraps to a negative index. IndexValue is that C as an op,
for the shape checks of an index (subtensor.index_checks), whose Assert reads int64 only.
"""

from __future__ import annotations

import operator

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.graph import Apply, Variable
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant

INTP_MIN, INTP_MAX = int(np.iinfo(np.intp).min), int(np.iinfo(np.intp).max)
_UINTP_MAX = 2 * INTP_MAX + 1


def index_int(value, axis):
    """The integer index `value` on `axis` as a Python int, or numpy's error for one beyond npy_intp."""
    value = operator.index(value)
    if INTP_MIN <= value <= INTP_MAX:
        return value
    if INTP_MAX < value <= _UINTP_MAX:
        raise OverflowError(f"Python int too large to convert to C long (index {value} on axis {axis})")
    raise IndexError(f"index {value} is out of bounds for axis {axis}: it is beyond the range of a C index "
                     f"(npy_intp, {INTP_MIN} to {INTP_MAX}), as no axis can be that long")


def bound_int(value):
    """The slice bound `value` as a Python int clamped to npy_intp's range (the axis clamps it further)."""
    return min(max(operator.index(value), INTP_MIN), INTP_MAX)


def index_input(value, what, axis, bound):
    """An index entry (Python or numpy integer, or integer scalar variable) as the input of an index op.

    A Python or numpy integer becomes an int64 constant: `bound_int` of it for a slice bound (`bound`),
    `index_int` of it for an integer index (which raises numpy's error at once: no array is that long).
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got the bool {value!r}")
    if isinstance(value, (int, np.integer)):
        return constant(np.int64(bound_int(value) if bound else index_int(value, axis)))
    if isinstance(value, Variable):
        value = as_tensor_variable(value)
        if value.ndim == 0 and np.dtype(value.dtype).kind in "iu":
            return value
    raise TypeError(f"{what} must be an integer or an integer scalar variable, got {value!r}")


def check_index_inputs(op, idx_list, index_inputs, after=""):
    """Raise unless `index_inputs` are the 0-d integer tensors `idx_list` takes (`after`: the inputs before)."""
    expected = sum(1 if e == "int" else sum(e[1:]) for e in idx_list)
    if len(index_inputs) != expected:
        raise ValueError(f"{op} takes {expected} index scalars{after} (one per integer and per given slice "
                         f"bound), got {len(index_inputs)}")
    for position, i in enumerate(index_inputs):
        if i.ndim != 0 or np.dtype(i.dtype).kind not in "iu":
            raise TypeError(f"{op}: index input {position} must be a 0-d integer tensor (int8 to int64, uint8 "
                            f"to uint64), got {i} of type {i.type}")


class IndexValue(SectionOp):
    """The integer index scalar `i` on `axis` as int64, or numpy's OverflowError for one of 2**63 or more.

    C: subtensor.c's opkit_index_value, through the macro `index_value` of templates/view.c.j2.
    """

    __props__ = ("axis",)
    section_files = ("subtensor.c",)

    def __init__(self, axis):
        self.axis = int(axis)

    def make_node(self, i):
        i = as_tensor_variable(i)
        if i.ndim != 0 or np.dtype(i.dtype).kind not in "iu":
            raise TypeError(f"{self} takes a 0-d integer tensor, got {i} of type {i.type}")
        return Apply(self, [i], [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(index_int(inputs[0], self.axis), dtype="int64")

    def has_c_code(self, node):
        return True  # subtensor.c has its support code; the code is the macro `index_value` of view.c.j2

    def c_code(self, node, name, inputs, outputs, sub):
        return render("view.c.j2", "index_value", i=inputs[0], z=outputs[0], fail=sub["fail"], axis=self.axis)

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # it raises for an index beyond npy_intp

    def __str__(self):
        return f"IndexValue{{axis={self.axis}}}"

"""Basic indexing x[1], x[-1], x[1:5:2, ::-1], x[i] (integer scalars and slices): a view of x.

An index is described by `idx_list`, one entry per indexed axis: "int" takes
one integer scalar input, a ("slice", start?, stop?, step?) tuple of booleans
says which of the three are given (each an integer scalar input).
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Constant
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import float_zeros_like, is_float_dtype
from opkit.core.tensor.shapes.index_values import IndexValue, check_index_inputs, index_input, index_int
from opkit.core.tensor.types.shape_checks import broadcast_into_checks, check_chain, depend
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

# The tag of x[None]'s DimShuffle (opkit adds the new axes first, then indexes, as PyTensor does): the positions
# of the new axes, so that set_subtensor(x[None, 1:], y) writes into x, as numpy's r[None, 1:] = y does.
NEW_AXES_TAG = "index_new_axes"


def parse_index(index, ndim):
    """Return (idx_list, inputs) for a Python index on an `ndim`-d tensor."""
    index = index if isinstance(index, tuple) else (index,)
    if any(i is Ellipsis or i is None for i in index):
        raise TypeError("indexing with ... or None is not supported; use dimshuffle to add axes")
    if len(index) > ndim:
        raise IndexError(f"too many indices: {len(index)} given for a {ndim}-d tensor")
    idx_list, inputs = [], []
    for axis, entry in enumerate(index):
        if isinstance(entry, slice):
            parts = (entry.start, entry.stop, entry.step)
            if isinstance(entry.step, (int, np.integer)) and entry.step == 0:
                raise ValueError(f"slice step cannot be zero (axis {axis})")
            idx_list.append(("slice", *[p is not None for p in parts]))
            inputs.extend(index_input(p, f"slice bound on axis {axis}", axis, bound=True)
                          for p in parts if p is not None)
        else:
            idx_list.append("int")
            inputs.append(index_input(entry, f"index on axis {axis}", axis, bound=False))
    return tuple(idx_list), inputs


def build_index(idx_list, values):
    """Return the Python index tuple of `idx_list` given the values of its scalar inputs.

    Its integers are read first, all of them, as numpy reads them (index_values.index_int: an index
    beyond npy_intp raises numpy's error); slice bounds stay Python ints, which numpy clamps to the axis.
    """
    values = iter(values)
    index = []
    for axis, entry in enumerate(idx_list):
        if entry == "int":
            index.append(index_int(next(values), axis))
        else:
            index.append(slice(*[int(next(values)) if given else None for given in entry[1:]]))
    return tuple(index)


def index_kinds(idx_list):
    """`idx_list` as the C index walk reads it (subtensor.c): -1 an integer; else bits 1, 2, 4: start, stop, step."""
    return tuple(-1 if e == "int" else sum(1 << k for k, given in enumerate(e[1:]) if given) for e in idx_list)


def _static_shape(idx_list, inputs, shape):
    """Return the output's static shape (None where a length is known only at run time)."""
    if all(isinstance(i, Constant) for i in inputs):
        index = build_index(idx_list, [i.data for i in inputs])
        out = []
        for axis, entry in enumerate(index):
            length = shape[axis]
            if isinstance(entry, int):
                if length is not None and not -length <= entry < length:
                    raise IndexError(f"index {entry} is out of bounds for axis {axis} with size {length}")
            elif length is not None:
                out.append(len(range(*entry.indices(length))))
            else:
                out.append(None)
        return tuple(out) + tuple(shape[len(idx_list):])
    return tuple(None for entry in idx_list if entry != "int") + tuple(shape[len(idx_list):])


class Subtensor(SectionOp):
    """x[index] for basic indexing (integers and slices): a view of x.

    C: subtensor.c (with opkit_view.h) and the macro `subtensor` of templates/view.c.j2 (a call per indexed axis).
    """

    __props__ = ("idx_list",)
    section_files = ("subtensor.c",)
    view_map = {0: [0]}

    def __init__(self, idx_list):
        self.idx_list = tuple(e if e == "int" else tuple(e) for e in idx_list)

    def make_node(self, x, *index_inputs):
        x = as_tensor_variable(x)
        if len(self.idx_list) > x.ndim:
            raise IndexError(f"too many indices: {len(self.idx_list)} given for a {x.ndim}-d tensor")
        index_inputs = [as_tensor_variable(i) for i in index_inputs]
        check_index_inputs(self, self.idx_list, index_inputs)
        shape = _static_shape(self.idx_list, index_inputs, x.type.shape)
        return Apply(self, [x, *index_inputs], [TensorType(x.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x, *values = inputs
        # The trailing ... keeps a 0-d result an array viewing x (x[1] alone would be a numpy scalar).
        output_storage[0][0] = x[build_index(self.idx_list, values) + (Ellipsis,)]

    def has_c_code(self, node):
        return True  # subtensor.c has its support code; the code is generated from templates/view.c.j2

    def c_code(self, node, name, inputs, outputs, sub):
        x, *index_inputs = inputs
        return _subtensor_code(x, outputs[0], sub["fail"], index_kinds(self.idx_list), tuple(index_inputs))

    def infer_shape(self, node, input_shapes):
        x = node.inputs[0]
        static = node.outputs[0].type.shape
        values = iter(node.inputs[1:])
        out = []
        for axis, entry in enumerate(self.idx_list):
            if entry == "int":
                next(values)
                continue
            parts = [next(values) if given else None for given in entry[1:]]
            length = static[len(out)]
            out.append(length if length is not None else
                       SliceLength(entry[1:])(input_shapes[0][axis], *[p for p in parts if p is not None]))
        return [tuple(out) + tuple(input_shapes[0][len(self.idx_list):x.ndim])]

    def shape_checks(self, node, input_shapes):
        return [check_chain(index_checks(self.idx_list, node.inputs[1:], input_shapes[0]))]

    def connection_pattern(self, node):
        return [[True]] + [[False] for _ in node.inputs[1:]]

    def grad(self, inputs, output_grads):
        x, *index_inputs = inputs
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x)] + [disconnected_type() for _ in index_inputs]
        return [SubtensorGrad(self.idx_list)(x, output_grads[0], *index_inputs)] + \
            [disconnected_type() for _ in index_inputs]

    def constant_entry(self, node):
        """Return (vector, k) where `node` is vector[k] of a constant integer k, else None (proven_sum_to_shape
        reads a length taken so from a shape vector as that length)."""
        vector, *index = node.inputs
        if self.idx_list != ("int",) or len(index) != 1 or not isinstance(index[0], Constant):
            return None
        return vector, int(np.asarray(index[0].data))

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]

    def __str__(self):
        parts = []
        for entry in self.idx_list:
            parts.append("i" if entry == "int" else ":".join("v" if g else "" for g in entry[1:]))
        return "Subtensor{" + ", ".join(parts) + "}"


@functools.lru_cache(maxsize=4096)  # a hot op: graphs are generated again and again with the same names
def _subtensor_code(x, z, fail, kinds, scalars):
    """The macro `subtensor` of view.c.j2 for the index `kinds` (index_kinds) whose scalar inputs are `scalars`."""
    return render("view.c.j2", "subtensor", x=x, z=z, fail=fail, kinds=kinds, scalars=scalars)


def index_checks(idx_list, index_inputs, dims):
    """The checks numpy makes of a basic index on an array of `dims`, axis by axis (for check_chain).

    A uint64 integer is read by IndexValue first (the Assert's C reads int64: 2**64 - 1 would pass as -1),
    and numpy reads every integer of an index before it checks any: the first check waits for them all.
    """
    values = iter(index_inputs)
    checks, conversions = [], []
    for axis, entry in enumerate(idx_list):
        if entry == "int":
            i = next(values)
            if i.dtype == "uint64":
                i = IndexValue(axis)(i)
                conversions.append(i)
            checks.append(("IndexError", f"index {{}} is out of bounds for axis {axis} with size {{}}", "in_range",
                           i, dims[axis], (i, dims[axis])))
            continue
        parts = [next(values) if given else None for given in entry[1:]]
        if parts[2] is not None:
            checks.append(("ValueError", "slice step cannot be zero", "ne", parts[2], 0, ()))
    if conversions:
        exception, template, relation, lhs, rhs, args = checks[0]
        checks[0] = (exception, template, relation, depend(lhs, *conversions), rhs, args)
    return checks


def write_checks(idx_list, x, index_inputs, x_dims, value_dims):
    """The check of ``result[index] = value`` (for check_chain's Assert): the index fits x, value broadcasts in."""
    indexed = Subtensor(idx_list)(x, *index_inputs)
    selected, = Subtensor(idx_list).infer_shape(indexed.owner, [x_dims] + [()] * len(index_inputs))
    return check_chain(index_checks(idx_list, index_inputs, x_dims) + broadcast_into_checks(value_dims, selected))


class SliceLength(Op):
    """len(range(*slice(start, stop, step).indices(length))) as an int64 scalar (shape inference)."""

    __props__ = ("given",)

    def __init__(self, given):
        self.given = tuple(bool(g) for g in given)

    def make_node(self, length, *parts):
        inputs = [as_tensor_variable(length), *[as_tensor_variable(p) for p in parts]]
        return Apply(self, inputs, [TensorType("int64", ())()])

    def perform(self, node, inputs, output_storage):
        length, *parts = [int(v) for v in inputs]
        parts = iter(parts)
        bounds = slice(*[next(parts) if g else None for g in self.given])
        output_storage[0][0] = np.asarray(len(range(*bounds.indices(length))), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # it raises for a zero step


class SubtensorGrad(Op):
    """Zeros shaped like x with g placed at x[index]: the gradient of Subtensor."""

    __props__ = ("idx_list",)

    def __init__(self, idx_list):
        self.idx_list = tuple(idx_list)

    def make_node(self, x, g, *index_inputs):
        x, g = as_tensor_variable(x), as_tensor_variable(g)
        return Apply(self, [x, g, *index_inputs], [TensorType(x.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, g, *values = inputs
        result = np.zeros(x.shape, dtype=node.outputs[0].dtype)
        result[build_index(self.idx_list, values) + (Ellipsis,)] = g
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        x, g, *index_inputs = node.inputs
        return [write_checks(self.idx_list, x, index_inputs, input_shapes[0], input_shapes[1])]

    def connection_pattern(self, node):
        return [[False], [True]] + [[False] for _ in node.inputs[2:]]

    def grad(self, inputs, output_grads):
        x, g, *index_inputs = inputs
        return [disconnected_type(), Subtensor(self.idx_list)(output_grads[0], *index_inputs)] + \
            [disconnected_type() for _ in index_inputs]


def subtensor(x, index):
    """Return x[index] for basic indexing (integers, integer scalars, slices)."""
    x = as_tensor_variable(x)
    if x.ndim == 0:
        raise IndexError(f"cannot index the 0-d tensor {x}")
    idx_list, inputs = parse_index(index, x.ndim)
    return Subtensor(idx_list)(x, *inputs)

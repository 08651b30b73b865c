"""Small tensor ops that gradient graphs need: Alloc (broadcast to a shape), Cast, DimShuffle."""

from __future__ import annotations

import functools

import numpy as np

from opkit.config import config
from opkit.core.builtin_ops import Shape_i
from opkit.core.c_source import SectionOp, render
from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply, Constant
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_logic
from opkit.core.tensor.types.c_interface import c_dtype
from opkit.core.tensor.types.shape_checks import broadcast_into_checks, check_chain, known_nonnegative
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def is_float_dtype(dtype):
    """Return True for floating-point (and complex) dtypes."""
    return np.dtype(dtype).kind in "fc"


def float_dtype(dtype):
    """Return `dtype` if it is a float dtype, else config.floatX (no integer gradients)."""
    if is_float_dtype(dtype):
        return str(np.dtype(dtype))
    return config.floatX


def broadcast_copy(value, shape, dtype, what):
    """Return a new array of `shape` and `dtype` holding `value` broadcast, or raise ValueError naming `what`."""
    result = np.empty(shape, dtype=dtype)
    try:
        result[...] = value
    except ValueError:
        raise ValueError(f"{what}: cannot broadcast a value of shape {np.shape(value)} to the shape "
                         f"{tuple(shape)}: numpy's broadcasting needs each of its lengths to be 1 or "
                         "the target's, counted from the last axis") from None
    return result


class Alloc(SectionOp):
    """Broadcast `value` to the shape given by int64 scalars, as a new array (C: alloc.c, templates/alloc.c.j2)."""

    __props__ = ()
    section_files = ("alloc.c",)

    def make_node(self, value, *dims):
        value = as_tensor_variable(value)
        dims = [as_tensor_variable(d) for d in dims]
        if len(dims) < value.ndim:
            raise ValueError(f"Alloc of a {value.ndim}-d value to {len(dims)} dimensions; "
                             "the target needs at least as many")
        for position, dim in enumerate(dims):
            if dim.ndim != 0 or np.dtype(dim.dtype).kind not in "iu":
                raise TypeError(f"Alloc dimension {position} must be an integer scalar, got {dim} of type {dim.type}")
        shape = tuple(int(d.data) if isinstance(d, Constant) else None for d in dims)
        return Apply(self, [value, *dims], [TensorType(value.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        value, *dims = inputs
        output_storage[0][0] = broadcast_copy(value, [int(d) for d in dims], node.outputs[0].dtype, "alloc")

    def has_c_code(self, node):
        # uint64 lengths above int64's range: perform raises numpy's error. (alloc.c has no code section:
        # the code is generated per node from templates/alloc.c.j2.)
        return all(d.dtype != "uint64" for d in node.inputs[1:])

    def c_code(self, node, name, inputs, outputs, sub):
        (value, *dims), (z,) = inputs, outputs
        return _alloc_code(value, z, sub["fail"], tuple((d, c_dtype(v.dtype)) for v, d in zip(node.inputs[1:], dims)))

    def infer_shape(self, node, input_shapes):
        return [tuple(node.inputs[1:])]

    def shape_checks(self, node, input_shapes):
        value, *dims = node.inputs
        negative = [("ValueError", "negative dimensions are not allowed", "ge", d, 0, ())
                    for d in dims if not known_nonnegative(d)]
        return [check_chain(negative + broadcast_into_checks(input_shapes[0], dims))]

    def connection_pattern(self, node):
        return [[True]] + [[False] for _ in node.inputs[1:]]

    def do_constant_folding(self, node):
        # Folding would store a possibly large array in the graph for every call.
        return False

    grad = registered("grad")  # it sums broadcast axes back: gradients/shape_grad.py

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]


alloc = Alloc()


@functools.lru_cache(maxsize=4096)  # gradient graphs hold many: their code is made again with the same names
def _alloc_code(value, z, fail, dims):
    """The macro `alloc` of alloc.c.j2 for lengths read from `dims`, (C name, npy_ type) pairs."""
    dims = [{"name": name, "ctype": ctype} for name, ctype in dims]
    return render("alloc.c.j2", "alloc", value=value, z=z, fail=fail, dims=dims)


def shape_dims(x):
    """Return the dimensions of `x` as int64 scalars (constants where the static shape is known)."""
    return [constant(s, dtype="int64") if s is not None else Shape_i(axis)(x)
            for axis, s in enumerate(x.type.shape)]


def alloc_like(value, model):
    """Return `value` broadcast to the shape of `model`."""
    value = as_tensor_variable(value)
    if model.ndim == 0 and value.ndim == 0:
        return value
    return alloc(value, *shape_dims(model))


def zeros_like(x, dtype=None):
    """Return zeros with the shape of `x` (dtype: `x`'s unless given)."""
    return alloc_like(constant(np.zeros((), dtype=dtype or x.dtype)), x)


def float_zeros_like(x):
    """Return zeros shaped like `x`, in its dtype if float, else config.floatX: a zero gradient."""
    return zeros_like(x, float_dtype(x.dtype))


def ones_like(x, dtype=None):
    """Return ones with the shape of `x` (dtype: `x`'s unless given)."""
    return alloc_like(constant(np.ones((), dtype=dtype or x.dtype)), x)


class Cast(Elemwise):
    """Convert a tensor to another dtype, as ndarray.astype does (an elementwise op: it fuses)."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = known_dtype(dtype, "cast")
        self.scalar_op = scalar_logic.cast(self.dtype)

    def perform(self, node, inputs, output_storage):
        # numpy's warnings (overflow to a narrower float, invalid float to integer) reach the caller.
        output_storage[0][0] = np.asarray(inputs[0]).astype(self.dtype)

    def fusable(self, node):
        # A cast that runs numpy stays its own node, so that numpy's warnings are not silenced.
        return self.has_c_code(node)

    def grad(self, inputs, output_grads):
        x, g = inputs[0], output_grads[0]
        # An integer input still gets the gradient: float(y) is defined at y + eps.
        return [cast(g, x.dtype if is_float_dtype(x.dtype) else float_dtype(g.dtype))]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None or not is_float_dtype(self.dtype):
            return [None]
        return [cast(eval_points[0], self.dtype)]

    def __str__(self):
        return f"Cast{{{self.dtype}}}"


def known_dtype(dtype, what):
    """Return numpy's name for a numeric `dtype`; raise TypeError naming `what` if there is none."""
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result is None or result.kind not in "biufc":
        raise TypeError(f"{what}: {dtype!r} is not a numeric dtype; use a numpy dtype such as 'float64', "
                        "'float32', 'int64', 'uint8', 'bool' or 'complex128'")
    return str(result)


def cast(x, dtype):
    """Return `x` converted to `dtype` (`x` itself when it already has it)."""
    x = as_tensor_variable(x)
    if x.dtype == known_dtype(dtype, "cast"):
        return x
    return Cast(dtype)(x)


class DimShuffle(SectionOp):
    """Reorder the axes of a tensor and insert length-1 axes ('x' in `new_order`): a view of the input.

    C: dimshuffle.c (with opkit_view.h) and the macro `dimshuffle` of templates/view.c.j2 (a line per axis).
    """

    __props__ = ("new_order",)
    section_files = ("dimshuffle.c",)
    view_map = {0: [0]}

    def __init__(self, new_order):
        self.new_order = tuple(a if a == "x" else int(a) for a in new_order)

    def make_node(self, x):
        x = as_tensor_variable(x)
        axes = [a for a in self.new_order if a != "x"]
        if sorted(axes) != list(range(x.ndim)):
            raise ValueError(f"dimshuffle{self.new_order} on {x} (a {x.ndim}-d tensor): give each axis "
                             f"0..{x.ndim - 1} exactly once, and 'x' for each new length-1 axis")
        shape = tuple(1 if a == "x" else x.type.shape[a] for a in self.new_order)
        return Apply(self, [x], [TensorType(x.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x = np.transpose(inputs[0], [a for a in self.new_order if a != "x"])
        inserted = [i for i, a in enumerate(self.new_order) if a == "x"]
        output_storage[0][0] = np.expand_dims(x, inserted) if inserted else x

    def has_c_code(self, node):
        return True  # dimshuffle.c has its support code; the code is generated from templates/view.c.j2

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return _dimshuffle_code(x, z, sub["fail"], self.new_order)

    def infer_shape(self, node, input_shapes):
        return [tuple(1 if a == "x" else input_shapes[0][a] for a in self.new_order)]

    def shape_checks(self, node, input_shapes):
        return []  # make_node checked the order: every axis once, only new axes added

    grad = registered("grad")  # it sums the inserted axes: gradients/shape_grad.py

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]

    def __str__(self):
        return "DimShuffle{" + ",".join(map(str, self.new_order)) + "}"


@functools.lru_cache(maxsize=4096)  # a hot op: graphs are generated again and again with the same names
def _dimshuffle_code(x, z, fail, new_order):
    return render("view.c.j2", "dimshuffle", x=x, z=z, fail=fail, new_order=new_order)


def expand_dims(x, axes):
    """Return `x` with length-1 axes inserted at `axes` (positions in the result)."""
    ndim = x.ndim + len(axes)
    axes = {a + ndim if a < 0 else a for a in axes}
    source = iter(range(x.ndim))
    return DimShuffle(["x" if a in axes else next(source) for a in range(ndim)])(x)


def transpose(x, axes=None):
    """Return `x` with its axes permuted by `axes` (default: reversed), a view as numpy.transpose."""
    x = as_tensor_variable(x)
    if axes is None:
        axes = list(range(x.ndim))[::-1]
    axes = [int(a) + x.ndim if int(a) < 0 else int(a) for a in axes]
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"transpose axes {tuple(axes)} are not a permutation of the {x.ndim} axes of {x}")
    return DimShuffle(axes)(x)

"""reshape and flatten: a view of the input where numpy can make one (numpy.reshape's rule), else a copy."""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Constant, Variable
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.elementwise.elemwise_math import minimum
from opkit.core.tensor.shapes.alloc import cast, shape_dims
from opkit.core.tensor.shapes.index_values import INTP_MAX, bound_int
from opkit.core.tensor.shapes.shape_ops import make_vector, shape as shape_of
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def resolve_shape(size, shape, source_shape):
    """Return numpy's target shape for reshaping `size` elements (one -1 allowed), or raise ValueError."""
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    wrong = [s for s in shape if s < -1]
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if len(unknown) > 1 or wrong or (unknown and known == 0) or (not unknown and known != size) \
            or (unknown and size % known):
        raise ValueError(f"reshape: cannot reshape an array of shape {tuple(source_shape)} ({size} elements) "
                         f"into shape {shape}: the new shape must hold the same number of elements, with at "
                         "most one -1 for a length to deduce")
    if unknown:
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    return shape


def _shape_vector(shape):
    """Return `shape` (ints, int scalar variables, or an int vector) as an int64 vector variable."""
    if isinstance(shape, (int, np.integer)) or (isinstance(shape, Variable) and shape.ndim == 0):
        shape = [shape]
    if isinstance(shape, (list, tuple)):
        if all(isinstance(s, (int, np.integer)) for s in shape):
            return constant(np.asarray([bound_int(s) for s in shape], dtype="int64").reshape(len(shape)))
        return make_vector(*[_int64_lengths(as_tensor_variable(s)) for s in shape])
    vector = as_tensor_variable(shape)
    if vector.ndim != 1 or np.dtype(vector.dtype).kind not in "iu":
        raise TypeError(f"reshape: the shape must be integers or an integer vector, got {vector} of type "
                        f"{vector.type}")
    return _int64_lengths(vector)


def _int64_lengths(lengths):
    """Integer lengths as int64: a uint64 beyond int64 stays too long (numpy refuses it), never wraps to -1."""
    if lengths.dtype == "uint64":
        lengths = minimum(lengths, constant(np.uint64(INTP_MAX)))
    return cast(lengths, "int64")


@functools.lru_cache(maxsize=None)
def _reshape_params():
    """Reshape's params type, made when a Reshape is first compiled: importing opkit.tensor builds no ParamsType."""
    return ParamsType(ndim=SCALAR_TYPES["int64"])


class Reshape(SectionOp):
    """x reshaped to the int64 vector `shape` (one -1 allowed), as numpy.reshape in C order."""

    __props__ = ("ndim",)
    view_map = {0: [0]}
    section_files = ("reshape.c",)

    @property
    def params_type(self):
        return _reshape_params()

    def __init__(self, ndim):
        self.ndim = int(ndim)

    def make_node(self, x, shape):
        x, shape = as_tensor_variable(x), as_tensor_variable(shape)
        static = [None] * self.ndim
        if isinstance(shape, Constant):
            values = [int(s) for s in shape.data]
            if None not in x.type.shape:
                values = resolve_shape(int(np.prod(x.type.shape, dtype=np.int64)), values, x.type.shape)
            static = [s if s >= 0 else None for s in values]
        return Apply(self, [x, shape], [TensorType(x.dtype, tuple(static))()])

    def perform(self, node, inputs, output_storage, params=None):
        x, shape = inputs
        output_storage[0][0] = np.reshape(x, resolve_shape(x.size, shape, x.shape))

    def infer_shape(self, node, input_shapes):
        x, shape = node.inputs
        static = node.outputs[0].type.shape
        if None not in static:
            return [static]
        if isinstance(shape, Constant) and -1 not in [int(s) for s in shape.data]:
            return [tuple(int(s) for s in shape.data)]
        resolved = ResolvedShape(x.ndim)(shape, *input_shapes[0])
        return [tuple(s if s is not None else resolved[i] for i, s in enumerate(static))]

    def shape_checks(self, node, input_shapes):
        x, shape = node.inputs
        if isinstance(shape, Constant) and None not in x.type.shape:
            return []  # make_node resolved it
        return [ResolvedShape(x.ndim)(shape, *input_shapes[0])]  # raises resolve_shape's error

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        x, _ = inputs
        return [reshape(output_grads[0], shape_of(x), ndim=x.ndim), disconnected_type()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]

    def __str__(self):
        return f"Reshape{{{self.ndim}}}"


class ResolvedShape(SectionOp):
    """The target shape of a reshape with its -1 resolved, from the source dims (shape inference).

    C: resolved_shape.c (the shared helpers) and the macro `resolved_shape` of
    templates/resolved_shape.c.j2 (a read per source axis).
    """

    __props__ = ("source_ndim",)
    section_files = ("resolved_shape.c",)

    def __init__(self, source_ndim):
        self.source_ndim = int(source_ndim)

    def make_node(self, shape, *dims):
        shape = as_tensor_variable(shape)
        dims = [as_tensor_variable(d) for d in dims]
        return Apply(self, [shape, *dims], [TensorType("int64", shape.type.shape)()])

    def perform(self, node, inputs, output_storage):
        shape, *dims = inputs
        size = int(np.prod([int(d) for d in dims], dtype=np.int64))
        output_storage[0][0] = np.asarray(resolve_shape(size, shape, [int(d) for d in dims]), dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return [node.outputs[0]]  # it raises where the reshape would

    def has_c_code(self, node):
        return all(v.dtype == "int64" for v in node.inputs)

    def c_code(self, node, name, inputs, outputs, sub):
        shape, *dims = inputs
        return render("resolved_shape.c.j2", "resolved_shape", shape=shape, source_dims=list(dims), out=outputs[0],
                      fail=sub["fail"])

    def c_code_cache_version(self):
        return (3, *super().c_code_cache_version())


def reshape(x, shape, ndim=None):
    """Return `x` with a new shape (ints, int scalars or an int vector; one -1 deduces a length)."""
    x = as_tensor_variable(x)
    vector = _shape_vector(shape)
    length = len(vector.data) if isinstance(vector, Constant) else vector.type.shape[0]
    if ndim is None:
        if length is None:
            raise ValueError(f"reshape: the length of the shape vector {vector} is not known when the graph is "
                             "built; pass ndim=")
        ndim = length
    return Reshape(ndim)(x, vector)


def flatten(x, ndim=1):
    """Return `x` with its trailing axes merged so that it has `ndim` dimensions (numpy's C order)."""
    x = as_tensor_variable(x)
    if not 1 <= ndim <= max(x.ndim, 1):
        raise ValueError(f"flatten: ndim={ndim} must be between 1 and the {x.ndim} dimensions of {x}")
    dims = shape_dims(x)
    last = constant(np.int64(1))
    for d in dims[ndim - 1:]:
        last = last * d
    return reshape(x, [*dims[:ndim - 1], last])

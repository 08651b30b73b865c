"""Diagonals: eye, identity_like, diag, diagonal (a view), trace and fill_diagonal.

Eye, AllocDiag and ExtractDiag have C (eye.c, alloc_diag.c, extract_diag.c); ExtractDiag's gradient
(zeros with the diagonal set) and FillDiagonal run numpy in `perform`, as PyTensor's do.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.config import config
from opkit.core.c_source import SectionOp
from opkit.core.gradient_types import disconnected_type, grad_undefined
from opkit.core.graph import Apply, Constant
from opkit.core.op import Op
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.elementwise.basic import maximum
from opkit.core.tensor.elementwise.elemwise_math import minimum
from opkit.core.tensor.shapes.alloc import cast, float_zeros_like, is_float_dtype, known_dtype
from opkit.core.tensor.shapes.axes import normalize_axis
from opkit.core.tensor.shapes.shape_ops import shape
from opkit.core.tensor.types.shape_checks import check_chain, known_nonnegative
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


@functools.lru_cache(maxsize=None)
def _diag_params():
    """The params type of ExtractDiag and AllocDiag (made on first compile: importing builds no ParamsType)."""
    int64 = SCALAR_TYPES["int64"]
    return ParamsType(offset=int64, axis1=int64, axis2=int64)


def _int_scalar(value, what, name):
    """`value` as an int64 scalar variable; TypeError naming `name` unless it is an integer scalar."""
    value = as_tensor_variable(value)
    if value.ndim != 0 or np.dtype(value.dtype).kind not in "iu":
        raise TypeError(f"{what}: {name} must be an integer scalar, got {value} of type {value.type}")
    return cast(value, "int64")


def _static(value):
    return int(value.data) if isinstance(value, Constant) else None


def diagonal_length(n1, n2, offset):
    """numpy's length of the `offset` diagonal of an n1 x n2 matrix (ints or int64 scalar variables)."""
    if isinstance(n1, int) and isinstance(n2, int):
        return max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    longest = minimum(n1, n2 - offset) if offset >= 0 else minimum(n1 + offset, n2)
    return maximum(longest, 0)


class Eye(SectionOp):
    """numpy.eye(n, m, k, dtype) from int64 scalars n, m, k (C: eye.c)."""

    __props__ = ("dtype",)
    section_files = ("eye.c",)

    def __init__(self, dtype):
        self.dtype = known_dtype(dtype, "eye")

    def make_node(self, n, m, k):
        n, m, k = (_int_scalar(v, "eye", name) for v, name in zip((n, m, k), ("n", "m", "k")))
        shape = tuple(s if s is not None and s >= 0 else None for s in (_static(n), _static(m)))
        return Apply(self, [n, m, k], [TensorType(self.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        n, m, k = (int(v) for v in inputs)
        output_storage[0][0] = np.eye(n, m, k, dtype=self.dtype)

    def infer_shape(self, node, input_shapes):
        return [tuple(node.inputs[:2])]

    def shape_checks(self, node, input_shapes):
        return [check_chain([("ValueError", "negative dimensions are not allowed", "ge", d, 0, ())
                             for d in node.inputs[:2] if not known_nonnegative(d)])]

    def connection_pattern(self, node):
        return [[False], [False], [False]]

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, i, v) for i, v in enumerate(inputs)]

    def do_constant_folding(self, node):
        return False  # a large identity would be stored in the graph

    def __str__(self):
        return f"Eye{{{self.dtype}}}"


class AllocDiag(SectionOp):
    """A square matrix of zeros with the vector `v` on its `offset` diagonal: numpy.diag(v, k) (C: alloc_diag.c)."""

    __props__ = ("offset",)
    section_files = ("alloc_diag.c",)

    @property
    def params_type(self):
        return _diag_params()

    # the params struct's other fields (AllocDiag's diagonal is always that of axes 0 and 1)
    axis1, axis2 = 0, 1

    def __init__(self, offset=0):
        self.offset = int(offset)

    def make_node(self, v):
        v = as_tensor_variable(v)
        if v.ndim != 1:
            raise ValueError(f"AllocDiag: v must be a vector, got {v} with {v.ndim} dimensions")
        n = v.type.shape[0]
        size = None if n is None else n + abs(self.offset)
        return Apply(self, [v], [TensorType(v.dtype, (size, size))()])

    def perform(self, node, inputs, output_storage, params=None):
        output_storage[0][0] = np.diag(inputs[0], self.offset)

    def infer_shape(self, node, input_shapes):
        size = input_shapes[0][0] + abs(self.offset)
        return [(size, size)]

    def shape_checks(self, node, input_shapes):
        return []

    def grad(self, inputs, output_grads):
        return [diagonal(output_grads[0], self.offset)]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]

    def __str__(self):
        return f"AllocDiag{{offset={self.offset}}}"


class ExtractDiag(SectionOp):
    """The `offset` diagonal of axes axis1 < axis2, as the last axis: a view, numpy.diagonal (C: extract_diag.c)."""

    __props__ = ("offset", "axis1", "axis2")
    section_files = ("extract_diag.c",)
    view_map = {0: [0]}

    @property
    def params_type(self):
        return _diag_params()

    def __init__(self, offset=0, axis1=0, axis2=1):
        axis1, axis2, offset = int(axis1), int(axis2), int(offset)
        if axis1 < 0 or axis2 < 0 or axis1 == axis2:
            raise ValueError(f"ExtractDiag: axis1={axis1} and axis2={axis2} must be distinct nonnegative axes "
                             "(the function diagonal takes negative ones)")
        if axis1 > axis2:
            axis1, axis2, offset = axis2, axis1, -offset
        self.offset, self.axis1, self.axis2 = offset, axis1, axis2

    def make_node(self, x):
        x = as_tensor_variable(x)
        if x.ndim < 2 or self.axis2 >= x.ndim:
            raise ValueError(f"diagonal: axes {self.axis1} and {self.axis2} need a tensor of at least "
                             f"{max(2, self.axis2 + 1)} dimensions, got {x} with {x.ndim}")
        n1, n2 = x.type.shape[self.axis1], x.type.shape[self.axis2]
        length = None if n1 is None or n2 is None else diagonal_length(n1, n2, self.offset)
        shape = [s for a, s in enumerate(x.type.shape) if a not in (self.axis1, self.axis2)] + [length]
        return Apply(self, [x], [TensorType(x.dtype, tuple(shape))()])

    def perform(self, node, inputs, output_storage, params=None):
        out = inputs[0].diagonal(self.offset, self.axis1, self.axis2)
        if inputs[0].flags.writeable:
            out.flags.writeable = True  # numpy's diagonal view is read-only; the C view is as writeable as x
        output_storage[0][0] = out

    def infer_shape(self, node, input_shapes):
        dims = input_shapes[0]
        rest = [d for a, d in enumerate(dims) if a not in (self.axis1, self.axis2)]
        return [(*rest, diagonal_length(dims[self.axis1], dims[self.axis2], self.offset))]

    def shape_checks(self, node, input_shapes):
        return []

    def grad(self, inputs, output_grads):
        x = inputs[0]
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x)]
        return [ExtractDiagGrad(self.offset, self.axis1, self.axis2)(x, output_grads[0])]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]

    def __str__(self):
        return f"ExtractDiag{{offset={self.offset}, axis1={self.axis1}, axis2={self.axis2}}}"


class ExtractDiagGrad(Op):
    """Zeros shaped like x with g on the diagonal ExtractDiag takes: its gradient (perform: numpy)."""

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset, axis1, axis2):
        self.offset, self.axis1, self.axis2 = int(offset), int(axis1), int(axis2)

    def make_node(self, x, g):
        x, g = as_tensor_variable(x), as_tensor_variable(g)
        return Apply(self, [x, g], [TensorType(g.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        x, g = inputs
        result = np.zeros(x.shape, dtype=node.outputs[0].dtype)
        moved = np.moveaxis(result, (self.axis1, self.axis2), (-2, -1))
        steps = np.arange(g.shape[-1])
        moved[..., steps + max(0, -self.offset), steps + max(0, self.offset)] = g
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[False], [True]]

    def grad(self, inputs, output_grads):
        return [disconnected_type(), ExtractDiag(self.offset, self.axis1, self.axis2)(output_grads[0])]


class FillDiagonal(Op):
    """numpy.fill_diagonal on a copy of `a` (perform: numpy, as PyTensor's; no C)."""

    __props__ = ()

    def make_node(self, a, val):
        a, val = as_tensor_variable(a), as_tensor_variable(val)
        if a.ndim < 2:
            raise TypeError(f"fill_diagonal: a must have at least two dimensions, got {a} with {a.ndim}")
        if val.ndim != 0:
            raise TypeError(f"fill_diagonal: val must be a scalar, got {val} with {val.ndim} dimensions")
        return Apply(self, [a, val], [TensorType(a.dtype, a.type.shape)()])

    def perform(self, node, inputs, output_storage):
        a = inputs[0].copy()
        np.fill_diagonal(a, inputs[1])
        output_storage[0][0] = a

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        dims = input_shapes[0]
        if len(dims) == 2:
            return []
        return [check_chain([("ValueError", "All dimensions of input must be of equal length", "eq", d, dims[0], ())
                             for d in dims[1:]])]

    def grad(self, inputs, output_grads):
        a, val = inputs
        g = output_grads[0]
        if a.ndim > 2:
            raise NotImplementedError("fill_diagonal: the gradient is implemented for matrices only (as PyTensor's)")
        ga = fill_diagonal(g, 0) if is_float_dtype(a.dtype) else float_zeros_like(a)
        gval = diagonal(g).sum() if is_float_dtype(val.dtype) else float_zeros_like(val)
        return [ga, cast(gval, val.dtype) if is_float_dtype(val.dtype) else gval]


class FillDiagonalOffset(Op):
    """A copy of the matrix `a` with its `offset` diagonal (a scalar input) set to `val` (perform: numpy)."""

    __props__ = ()

    def make_node(self, a, val, offset):
        a, val = as_tensor_variable(a), as_tensor_variable(val)
        if a.ndim != 2:
            raise TypeError(f"fill_diagonal_offset: a must be a matrix, got {a} with {a.ndim} dimensions")
        if val.ndim != 0:
            raise TypeError(f"fill_diagonal_offset: val must be a scalar, got {val} with {val.ndim} dimensions")
        offset = _int_scalar(offset, "fill_diagonal_offset", "offset")
        return Apply(self, [a, val, offset], [TensorType(a.dtype, a.type.shape)()])

    def perform(self, node, inputs, output_storage):
        a, val, offset = inputs[0].copy(), inputs[1], int(inputs[2])
        steps = np.arange(diagonal_length(a.shape[0], a.shape[1], offset))
        a[steps + max(0, -offset), steps + max(0, offset)] = val
        output_storage[0][0] = a

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[True], [True], [False]]

    def grad(self, inputs, output_grads):
        a, val, offset = inputs
        g = output_grads[0]
        ga = self(g, 0, offset) if is_float_dtype(a.dtype) else float_zeros_like(a)
        dims = shape(g)
        gval = (g * Eye(g.dtype)(dims[0], dims[1], offset)).sum()
        gval = cast(gval, val.dtype) if is_float_dtype(val.dtype) else float_zeros_like(val)
        return [ga, gval, grad_undefined(self, 2, offset, "the offset is an integer")]


def fill_diagonal_offset(a, val, offset):
    """Return a copy of the matrix `a` with its `offset` diagonal set to the scalar `val` (PyTensor's)."""
    a = as_tensor_variable(a)
    return FillDiagonalOffset()(a, cast(as_tensor_variable(val), a.dtype), offset)


def eye(n, m=None, k=0, dtype=None):
    """Return numpy.eye(n, m, k): ones on the `k` diagonal (dtype: config.floatX unless given)."""
    return Eye(dtype if dtype is not None else config.floatX)(n, n if m is None else m, k)


def identity_like(x, dtype=None):
    """Return an identity matrix shaped like the matrix `x` (dtype: x's unless given)."""
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise ValueError(f"identity_like: x must be a matrix, got {x} with {x.ndim} dimensions")
    dims = shape(x)
    return eye(dims[0], dims[1], 0, dtype if dtype is not None else x.dtype)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """Return numpy.diagonal(a, offset, axis1, axis2): a view, the diagonal as the last axis."""
    a = as_tensor_variable(a)
    if a.ndim < 2:
        raise ValueError(f"diagonal: a must have at least two dimensions, got {a} with {a.ndim}")
    axis1 = normalize_axis(axis1, a.ndim, "diagonal", "axis1")
    axis2 = normalize_axis(axis2, a.ndim, "diagonal", "axis2")
    if axis1 == axis2:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same (both are axis {axis1})")
    return ExtractDiag(_offset(offset, "diagonal"), axis1, axis2)(a)


def _offset(offset, what):
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise TypeError(f"{what}: the offset must be a Python int, got {offset!r}")
    return int(offset)


def diag(v, k=0):
    """numpy.diag: the `k` diagonal of a matrix, or a square matrix with the vector `v` on its `k` diagonal."""
    v = as_tensor_variable(v)
    if v.ndim == 1:
        return AllocDiag(_offset(k, "diag"))(v)
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError(f"diag: input must be 1- or 2-d, got {v} with {v.ndim} dimensions")


def trace(a, offset=0, axis1=0, axis2=1):
    """Return numpy.trace(a, offset, axis1, axis2): the sum of the diagonal."""
    return diagonal(a, offset, axis1, axis2).sum(axis=-1)


fill_diagonal_ = FillDiagonal()


def fill_diagonal(a, val):
    """Return a copy of `a` with its main diagonal set to the scalar `val` (numpy.fill_diagonal)."""
    a = as_tensor_variable(a)
    val = as_tensor_variable(val)
    return fill_diagonal_(a, cast(val, a.dtype))


__all__ = ["AllocDiag", "Eye", "ExtractDiag", "FillDiagonal", "FillDiagonalOffset", "diag", "diagonal", "eye",
           "fill_diagonal", "fill_diagonal_offset", "identity_like", "trace"]

"""A minimal dense linear algebra: numpy.linalg in perform ops (no C), with the gradients PyTensor and Theano give.

- ``matrix_inverse(x)`` (PyTensor's ``linalg.inv``): gradient -inv(x).T @ g @ inv(x).T;
- ``det(x)``: gradient g * det(x) * inv(x).T;
- ``solve(a, b)`` (b a vector or a matrix): gradients solve(a.T, g) for b and -(that) x.T for a;
- ``cholesky(x)`` (lower): the gradient of PyTensor's Cholesky (Murray 2016), for symmetric x;
- ``eigh(x)`` (w, v, UPLO="L"), ``svd(x, full_matrices=True, compute_uv=True)``: no gradient (opkit does not
  implement theirs; grad raises NotImplementedError naming the op);
- ``norm(x, ord=None, axis=None, keepdims=False)``: numpy.linalg.norm built from abs, sum, max and sqrt (their
  C and gradients); matrix ord 2, -2 and "nuc" go through svd (no gradient).

Inputs are matrices (numpy's stacked form, PyTensor's Blockwise, is not supported: a clear error). Results are
float64, float32 for float32 (and float16) inputs, complex for complex, as numpy.linalg gives. numpy's
LinAlgError (a singular or not positive definite matrix) is raised when the function runs.
"""

from __future__ import annotations

import numbers

import numpy as np

from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import dot, sqrt
from opkit.core.tensor.elementwise.elemwise_math import abs as abs_
from opkit.core.tensor.elementwise.logic import neq
from opkit.core.tensor.products.matmul import outer
from opkit.core.tensor.reductions.reduction import max as max_, min as min_, sum as sum_
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.diagonal import diag, diagonal
from opkit.core.tensor.shapes.filled import tril
from opkit.core.tensor.types.shape_checks import check_chain
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable


def _result_dtype(dtype):
    if dtype in ("float32", "float64", "complex64", "complex128"):
        return dtype
    return "float32" if dtype == "float16" else "float64"


def _matrix(x, what, square=True):
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise ValueError(f"{what}: x must be a matrix (2-d), got {x} with {x.ndim} dimensions (opkit's linalg has "
                         "no stacked form)")
    n, m = x.type.shape
    if square and n is not None and m is not None and n != m:
        raise ValueError(f"{what}: x must be square, got static shape {x.type.shape}")
    return x


_SQUARE = "{}: the last 2 dimensions of the array must be square, got shape ({{}}, {{}})"
_ROWS = "solve: b has {} rows for the ({}, {}) matrix a"


def _square_check(what, n, m):
    """The check (shape_checks.check_chain's form) that the input of op `what`, of lengths n and m, is square."""
    return "LinAlgError", _SQUARE.format(what), "eq", n, m, (n, m)


def _square_checks(what, shape):
    """shape_checks of an op whose input of symbolic `shape` must be square: numpy's LinAlgError, with the shape."""
    return [check_chain([_square_check(what, *shape)])]


def _check_square(x, what):
    """Raise the error of `_square_check` if the matrix `x` is not square: the same in every mode."""
    if x.shape[0] != x.shape[1]:
        raise np.linalg.LinAlgError(_SQUARE.format(what).format(*x.shape))


def _as_result(x, square=None):
    """`x` in its result dtype (numpy.linalg refuses float16; ints give float64); checked square for `square`."""
    if square is not None:
        _check_square(x, square)
    return np.asarray(x, dtype=_result_dtype(str(x.dtype)))


class MatrixInverse(Op):
    """numpy.linalg.inv of a square matrix."""

    __props__ = ()

    def make_node(self, x):
        x = _matrix(x, "matrix_inverse")
        return Apply(self, [x], [TensorType(_result_dtype(x.dtype), x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.linalg.inv(_as_result(inputs[0], "matrix_inverse"))

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return _square_checks("matrix_inverse", input_shapes[0])

    def grad(self, inputs, output_grads):
        xi = self(inputs[0])
        return [-dot(dot(xi.T, output_grads[0]), xi.T)]


class Det(Op):
    """numpy.linalg.det of a square matrix (a 0-d result)."""

    __props__ = ()

    def make_node(self, x):
        x = _matrix(x, "det")
        return Apply(self, [x], [TensorType(_result_dtype(x.dtype), ())()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(np.linalg.det(_as_result(inputs[0], "det")))

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return _square_checks("det", input_shapes[0])

    def grad(self, inputs, output_grads):
        (x,), (g,) = inputs, output_grads
        return [g * self(x) * matrix_inverse(x).T]


class Solve(Op):
    """numpy.linalg.solve(a, b): x with a @ x = b, for a square matrix a and a vector or matrix b."""

    __props__ = ()

    def make_node(self, a, b):
        a = _matrix(a, "solve")
        b = as_tensor_variable(b)
        if b.ndim not in (1, 2):
            raise ValueError(f"solve: b must be a vector or a matrix, got {b} with {b.ndim} dimensions")
        dtype = _result_dtype(str(np.result_type(np.dtype(a.dtype), np.dtype(b.dtype))))
        return Apply(self, [a, b], [TensorType(dtype, (a.type.shape[1],) + b.type.shape[1:])()])

    def perform(self, node, inputs, output_storage):
        a, b = inputs
        _check_square(a, "solve")
        if b.shape[0] != a.shape[0]:
            raise ValueError(_ROWS.format(b.shape[0], *a.shape))
        dtype = node.outputs[0].dtype
        output_storage[0][0] = np.asarray(np.linalg.solve(a.astype(dtype), b.astype(dtype)), dtype=dtype)

    def infer_shape(self, node, input_shapes):
        return [(input_shapes[0][1],) + tuple(input_shapes[1][1:])]

    def shape_checks(self, node, input_shapes):
        (n, m), rows = input_shapes[0], input_shapes[1][0]
        return [check_chain([_square_check("solve", n, m), ("ValueError", _ROWS, "eq", rows, n, (rows, n, m))])]

    def grad(self, inputs, output_grads):
        (a, b), (g,) = inputs, output_grads
        x = self(a, b)
        gb = self(a.T, g)
        ga = -outer(gb, x) if b.ndim == 1 else -dot(gb, x.T)
        return [ga, gb]


class Cholesky(Op):
    """numpy.linalg.cholesky: the lower factor L of a symmetric positive definite matrix (L @ L.T = x)."""

    __props__ = ()

    def make_node(self, x):
        x = _matrix(x, "cholesky")
        return Apply(self, [x], [TensorType(_result_dtype(x.dtype), x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.linalg.cholesky(_as_result(inputs[0], "cholesky"))

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return _square_checks("cholesky", input_shapes[0])

    def grad(self, inputs, output_grads):
        (x,), (g,) = inputs, output_grads
        lower = self(x)
        inverse = matrix_inverse(lower)

        def phi(m):  # the lower triangle, its diagonal halved
            return tril(m) - diag(diagonal(m) * 0.5)

        s = dot(dot(inverse.T, phi(dot(lower.T, g))), inverse)
        return [tril(s + s.T) - diag(diagonal(s))]


class Eigh(Op):
    """numpy.linalg.eigh: the eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix."""

    __props__ = ("UPLO",)

    def __init__(self, UPLO="L"):
        if UPLO not in ("L", "U"):
            raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        self.UPLO = UPLO

    def make_node(self, x):
        x = _matrix(x, "eigh")
        dtype = _result_dtype(x.dtype)
        real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
        return Apply(self, [x], [TensorType(real, x.type.shape[:1])(), TensorType(dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        w, v = np.linalg.eigh(_as_result(inputs[0], "eigh"), UPLO=self.UPLO)
        output_storage[0][0], output_storage[1][0] = w, v

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0][:1], input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return _square_checks("eigh", input_shapes[0])

    def grad(self, inputs, output_grads):
        raise NotImplementedError("eigh: opkit does not implement the gradient of Eigh")


class SVD(Op):
    """numpy.linalg.svd: (U, s, Vh), or s alone without compute_uv."""

    __props__ = ("full_matrices", "compute_uv")

    def __init__(self, full_matrices=True, compute_uv=True):
        self.full_matrices, self.compute_uv = bool(full_matrices), bool(compute_uv)

    def make_node(self, x):
        x = _matrix(x, "svd", square=False)
        dtype = _result_dtype(x.dtype)
        real = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
        s = TensorType(real, (None,))()
        if not self.compute_uv:
            return Apply(self, [x], [s])
        return Apply(self, [x], [TensorType(dtype, (x.type.shape[0], None))(), s,
                                 TensorType(dtype, (None, x.type.shape[1]))()])

    def perform(self, node, inputs, output_storage):
        found = np.linalg.svd(_as_result(inputs[0]), full_matrices=self.full_matrices, compute_uv=self.compute_uv)
        for storage, value in zip(output_storage, found if self.compute_uv else [found]):
            storage[0] = value

    def grad(self, inputs, output_grads):
        raise NotImplementedError("svd: opkit does not implement the gradient of SVD")


def matrix_inverse(x):
    """Return numpy.linalg.inv(x) of a square matrix (PyTensor's linalg.inv, Theano's nlinalg.matrix_inverse)."""
    return MatrixInverse()(x)


def det(x):
    """Return numpy.linalg.det(x) of a square matrix."""
    return Det()(x)


def solve(a, b):
    """Return numpy.linalg.solve(a, b): x with a @ x = b (a square; b a vector or a matrix)."""
    return Solve()(a, b)


def cholesky(x):
    """Return numpy.linalg.cholesky(x): the lower factor of a symmetric positive definite matrix."""
    return Cholesky()(x)


def eigh(x, UPLO="L"):
    """Return [w, v] = numpy.linalg.eigh(x, UPLO): ascending eigenvalues and the eigenvectors (columns)."""
    return Eigh(UPLO)(x)


def svd(x, full_matrices=True, compute_uv=True):
    """Return numpy.linalg.svd(x, full_matrices, compute_uv): [U, s, Vh], or s without compute_uv."""
    return SVD(full_matrices, compute_uv)(x)


def norm(x, ord=None, axis=None, keepdims=False):
    """Return numpy.linalg.norm(x, ord, axis, keepdims): vector norms over one axis, matrix norms over two."""
    x = as_tensor_variable(x)
    x = cast(x, _result_dtype(x.dtype)) if x.dtype not in ("float32", "float64", "complex64", "complex128") else x
    if axis is None:
        if ord is None:
            flat = x.flatten() if x.ndim != 1 else x
            result = sqrt(sum_(abs_(flat) ** 2))
            return result.dimshuffle(*["x"] * x.ndim) if keepdims and x.ndim else result
        if x.ndim not in (1, 2):
            raise ValueError(f"norm: ord={ord!r} without axis needs a vector or a matrix, got {x.ndim} dimensions")
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, (numbers.Integral, np.integer)) else axis
    axes = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
    if not all(isinstance(a, (numbers.Integral, np.integer)) for a in axes) or len(axes) not in (1, 2):
        raise TypeError(f"norm: axis must be None, an integer or a pair of integers, got {axis!r}")
    axes = tuple(int(a) % max(x.ndim, 1) for a in axes)
    magnitude = abs_(x)
    if len(axes) == 1:
        (a,) = axes
        if ord is None or ord == 2:
            result = sqrt(sum_(magnitude ** 2, axis=a, keepdims=keepdims))
        elif ord == np.inf:
            result = max_(magnitude, axis=a, keepdims=keepdims)
        elif ord == -np.inf:
            result = min_(magnitude, axis=a, keepdims=keepdims)
        elif ord == 0:
            result = cast(sum_(neq(x, 0), axis=a, keepdims=keepdims), magnitude.dtype)
        elif isinstance(ord, str):
            raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
        elif ord == 1:
            result = sum_(magnitude, axis=a, keepdims=keepdims)
        else:
            result = sum_(magnitude ** ord, axis=a, keepdims=keepdims) ** (1.0 / ord)
        return result
    row, column = axes
    if row == column:
        raise ValueError("norm: duplicate axes given")
    if ord in (None, "fro", "f"):
        return sqrt(sum_(magnitude ** 2, axis=axes, keepdims=keepdims))
    if ord in (2, -2, "nuc"):
        if x.ndim != 2:
            raise NotImplementedError(f"norm: ord={ord!r} over two axes of a {x.ndim}-d tensor (a stacked svd)")
        s = svd(x if axes == (0, 1) else x.T, compute_uv=False)
        value = sum_(s) if ord == "nuc" else (max_ if ord == 2 else min_)(s)
        return value.dimshuffle("x", "x") if keepdims else value
    if ord in (1, -1):
        summed, kept, pick = row, column, max_ if ord == 1 else min_
    elif ord in (np.inf, -np.inf):
        summed, kept, pick = column, row, max_ if ord == np.inf else min_
    else:
        raise ValueError(f"norm: invalid norm order {ord!r} for matrices")
    result = pick(sum_(magnitude, axis=summed), axis=kept - (kept > summed))
    if keepdims:
        pattern, rest = [], iter(range(result.ndim))
        for i in range(x.ndim):
            pattern.append("x" if i in axes else next(rest))
        result = result.dimshuffle(pattern)
    return result

"""vecdot, matvec, vecmat (numpy 2's), cov (numpy's covariance matrix) and Theano's batched_tensordot: graphs of
matmul, dot and the reductions (no op of their own; their C is matmul's and dot's)."""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise.basic import sub, true_div
from opkit.core.tensor.elementwise.elemwise_elementary import conj
from opkit.core.tensor.products.matmul import _matmul, _product, _tensordot_axes, matmul
from opkit.core.tensor.reductions.reduction import mean
from opkit.core.tensor.shapes.alloc import cast, shape_dims, transpose
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.shapes.reshape import reshape
from opkit.core.tensor.types.variable import as_tensor_variable


def _conj(x):
    if np.dtype(x.dtype).kind != "c":
        return x
    return conj(x)


def _at_least(x, ndim, what, name):
    x = as_tensor_variable(x)
    if x.ndim < ndim:
        raise ValueError(f"{what}: {name} must have at least {ndim} dimension{'s' * (ndim > 1)}, got {x} with "
                         f"{x.ndim}")
    return x


def _finish(out, dtype):
    return cast(out, dtype) if dtype is not None else out


def vecdot(x1, x2, dtype=None):
    """Return numpy.vecdot(x1, x2): the dot product of the last axes (x1 conjugated), other axes broadcast."""
    x1, x2 = _at_least(x1, 1, "vecdot", "x1"), _at_least(x2, 1, "vecdot", "x2")
    out = matmul(_conj(x1)[..., None, :], x2[..., :, None])
    return _finish(out[..., 0, 0], dtype)


def matvec(x1, x2, dtype=None):
    """Return numpy.matvec(x1, x2): the matrix (..., M, K) times the vector (..., K), batch axes broadcast."""
    x1, x2 = _at_least(x1, 2, "matvec", "x1 (the matrix)"), _at_least(x2, 1, "matvec", "x2 (the vector)")
    return _finish(matmul(x1, x2[..., :, None])[..., 0], dtype)


def vecmat(x1, x2, dtype=None):
    """Return numpy.vecmat(x1, x2): the vector (..., K), conjugated, times the matrix (..., K, N)."""
    x1, x2 = _at_least(x1, 1, "vecmat", "x1 (the vector)"), _at_least(x2, 2, "vecmat", "x2 (the matrix)")
    return _finish(matmul(_conj(x1)[..., None, :], x2)[..., 0, :], dtype)


def _variables(m, rowvar, what):
    m = as_tensor_variable(m)
    if m.ndim > 2:
        raise ValueError(f"{what} has more than 2 dimensions ({m} has {m.ndim})")
    if m.ndim < 2:
        return m.dimshuffle(*["x"] * (2 - m.ndim), *range(m.ndim))
    return m if rowvar or m.type.shape[0] == 1 else m.T


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """Return numpy.cov(m, y, rowvar, bias, ddof): the covariance matrix of the variables (rows, or columns when
    not `rowvar`), float64 or complex128 (numpy's). A single variable (a vector m, no y) gives a 0-d result;
    numpy squeezes length-1 axes it finds when run, opkit those the types know."""
    if fweights is not None:
        raise NotImplementedError("fweights are not implemented")
    if aweights is not None:
        raise NotImplementedError("aweights are not implemented")
    if ddof is not None and (isinstance(ddof, (bool, np.bool_)) or not isinstance(ddof, (int, np.integer))):
        raise TypeError(f"cov: ddof must be an integer, got {ddof!r}")
    x = _variables(m, rowvar, "m")
    if y is not None:
        x = concatenate([x, _variables(y, rowvar, "y")], axis=0)
    dt = np.result_type(np.dtype(x.dtype), np.float64)
    x = cast(x, dt)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = cast(sub(shape_dims(x)[1], int(ddof)), dt)
    centered = sub(x, mean(x, axis=1, keepdims=True))
    c = true_div(matmul(centered, _conj(centered).T), fact)
    if c.type.shape == (1, 1):
        return c[0, 0]
    if c.type.shape[0] == 1 or c.type.shape[1] == 1:
        return c.flatten()
    return c


def batched_tensordot(x, y, axes=2):
    """Return Theano's batched_tensordot: out[i] = tensordot(x[i], y[i], axes), axis 0 the batch. An integer
    `axes` sums x's last `axes` axes with y's axes 1 to `axes`; a pair of lists names the axes of each (counting
    the batch axis)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.ndim < 2 or y.ndim < 2:
        raise TypeError(f"batched_tensordot: x and y need a batch axis and another, got {x.ndim}-d and "
                        f"{y.ndim}-d")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > x.ndim - 1 or n > y.ndim - 1:
            raise ValueError(f"batched_tensordot: axes={n} must be between 0 and the operands' non-batch "
                             f"dimensions ({x.ndim - 1} and {y.ndim - 1})")
        x_axes, y_axes = list(range(x.ndim - n, x.ndim)), list(range(1, n + 1))
    else:
        x_axes, y_axes = _tensordot_axes(x, y, axes)
        if 0 in x_axes or 0 in y_axes:
            raise ValueError(f"batched_tensordot: axes {axes!r} name the batch axis 0; name the other axes")
    x_free = [i for i in range(1, x.ndim) if i not in x_axes]
    y_free = [j for j in range(1, y.ndim) if j not in y_axes]
    x_dims, y_dims = shape_dims(x), shape_dims(y)
    summed = _product([x_dims[i] for i in x_axes])
    left = reshape(transpose(x, [0, *x_free, *x_axes]), [x_dims[0], _product([x_dims[i] for i in x_free]), summed],
                   ndim=3)
    right = reshape(transpose(y, [0, *y_axes, *y_free]), [y_dims[0], summed, _product([y_dims[j] for j in y_free])],
                    ndim=3)
    out_dims = [x_dims[0]] + [x_dims[i] for i in x_free] + [y_dims[j] for j in y_free]
    return reshape(_matmul(left, right), out_dims, ndim=len(out_dims))


__all__ = ["batched_tensordot", "cov", "matvec", "vecdot", "vecmat"]

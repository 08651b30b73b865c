"""Reductions built as graphs of the others: var, std, logsumexp, any, all, ptp.

As in PyTensor, none is an op of its own: each is mean, sum, max, min and elementwise nodes, so the
rewrites fuse them into the reductions' C loops and their gradients are those of the parts. Values and
dtypes are numpy's (scipy's for logsumexp): var and std of integers are float64, any and all are bool.

var's `ddof` divides by N - ddof, N the number of reduced elements (numpy's rule; PyTensor divides by
the product of each axis's length minus ddof, the same for one axis); `corrected=True` subtracts
PyTensor's correction term of the two-pass algorithm (equal to numpy's value up to rounding).
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise.basic import add, exp, log, mul, sqr, sqrt, sub, true_div
from opkit.core.tensor.elementwise.elemwise_math import abs as abs_
from opkit.core.tensor.elementwise.logic import eq, gt, lt, neq, switch
from opkit.core.tensor.reductions.reduction import max, mean, min, normalize_axis, sum
from opkit.core.tensor.shapes.alloc import alloc, cast, shape_dims
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.shapes.reshape import reshape
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def _count(x, axes):
    """The number of elements of `x` over `axes`, an int64 scalar."""
    dims = shape_dims(x)
    count = constant(np.int64(1))
    for axis in axes:
        count = mul(count, dims[axis])
    return count


def _centered(x, axes):
    x = as_tensor_variable(x)
    if np.dtype(x.dtype).kind == "c":
        raise TypeError(f"var: complex input {x} is not supported (opkit's var is for real and integer tensors)")
    return x - mean(x, axes, keepdims=True)


def var(input, axis=None, ddof=0, keepdims=False, corrected=False):
    """Return the variance of `input` over `axis` (None: every axis), dividing by N - ddof, as numpy.var."""
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"var: ddof must be an integer (keepdims is the fourth argument), got {ddof!r}")
    x = as_tensor_variable(input)
    axes = normalize_axis(axis, x.ndim, "var")
    centered = _centered(x, axes)
    if ddof == 0:
        v = mean(sqr(centered), axes, keepdims=keepdims)
    else:
        count = _count(x, axes)
        v = true_div(sum(sqr(centered), axes, keepdims=keepdims), cast(sub(count, int(ddof)), centered.dtype))
    if corrected:
        if ddof == 0:
            error = sqr(mean(centered, axes, keepdims=keepdims))
        else:
            count = _count(x, axes)
            scale = cast(mul(sub(count, int(ddof)), count), centered.dtype)
            error = true_div(sqr(sum(centered, axes, keepdims=keepdims)), scale)
        v = sub(v, error)
    v.name = "var"
    return v


def std(input, axis=None, ddof=0, keepdims=False, corrected=False):
    """Return the standard deviation of `input` over `axis`: the square root of var (numpy.std)."""
    result = sqrt(var(input, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected))
    result.name = "std"
    return result


def _padded_max(x, axes):
    """max of `x` over `axes` (keepdims) with -inf appended along each: -inf, not an error, over 0-size axes."""
    m = x
    for axis in axes:
        dims = shape_dims(m)
        dims[axis] = constant(np.int64(1))
        floor = alloc(constant(np.array(-np.inf, dtype=x.dtype)), *dims)
        m = max(concatenate([m, floor], axis=axis), axis, keepdims=True)
    return m


def logsumexp(x, axis=None, keepdims=False):
    """Return log(sum(exp(x))) over `axis`, computed without overflow, as scipy.special.logsumexp.

    Integers and bool are float64 first (scipy's rule). The largest value is subtracted before exp
    and added back (where it is finite), so large inputs do not overflow; a 0-size axis gives -inf.
    """
    x = as_tensor_variable(x)
    if np.dtype(x.dtype).kind == "c":
        raise TypeError(f"logsumexp: complex input {x} is not supported")
    if np.dtype(x.dtype).kind not in "f":
        x = cast(x, "float64")
    axes = normalize_axis(axis, x.ndim, "logsumexp")
    if not axes:
        return x
    top = _padded_max(x, axes)
    top = switch(lt(abs_(top), constant(np.array(np.inf, dtype=x.dtype))), top, constant(np.zeros((), dtype=x.dtype)))
    result = add(log(sum(exp(sub(x, top)), axes, keepdims=True)), top)
    if not keepdims:  # the reduced axes, now of length 1, dropped
        dims = shape_dims(x)
        result = reshape(result, [dims[i] for i in range(x.ndim) if i not in axes], ndim=x.ndim - len(axes))
    result.name = "logsumexp"
    return result


def any(x, axis=None, keepdims=False):
    """Return True where some element of `x` over `axis` is nonzero (NaN counts), as numpy.any."""
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, "any")
    return gt(sum(neq(x, 0), axes, keepdims=keepdims), 0)


def all(x, axis=None, keepdims=False):
    """Return True where every element of `x` over `axis` is nonzero (NaN counts), as numpy.all."""
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, "all")
    return eq(sum(eq(x, 0), axes, keepdims=keepdims), 0)


def ptp(a, axis=None, keepdims=False):
    """Return max(a) - min(a) over `axis` (peak to peak) in a's dtype, as numpy.ptp (bool raises TypeError)."""
    a = as_tensor_variable(a)
    if a.dtype == "bool":
        raise TypeError(f"ptp: a boolean tensor {a} has no difference (numpy.ptp refuses bool too); "
                        "cast it to an integer dtype first")
    axes = normalize_axis(axis, a.ndim, "ptp")
    return sub(max(a, axes, keepdims=keepdims), min(a, axes, keepdims=keepdims))

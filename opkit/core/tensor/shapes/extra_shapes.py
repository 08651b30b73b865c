"""PyTensor's and Theano's smaller shape helpers, built of the shape ops before them (no op of their own):
diff (slices), slice_at_axis, concat_with_broadcast (broadcast_to and concatenate), geomspace (logspace),
identity (a copy, TensorCopy), extract_diag (diagonal), is_flat, consider_constant (zero_grad) and ShapeError.
"""

from __future__ import annotations

import operator

import numpy as np

from opkit.core.builtin_ops import DeepCopyOp, Shape_i
from opkit.core.gradient_ops import zero_grad
from opkit.core.tensor.elementwise.basic import mul, sub, true_div
from opkit.core.tensor.elementwise.elemwise_elementary import log10
from opkit.core.tensor.elementwise.elemwise_math import sign
from opkit.core.tensor.elementwise.logic import gt, neq, switch
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.axes import broadcast_arrays, broadcast_to, moveaxis
from opkit.core.tensor.shapes.diagonal import diagonal
from opkit.core.tensor.shapes.filled import linspace
from opkit.core.tensor.shapes.inc_subtensor import set_subtensor
from opkit.core.tensor.shapes.join import concatenate
from opkit.core.tensor.types.variable import as_tensor_variable, constant


class ShapeError(Exception):
    """Raised when the shape cannot be computed (Theano's theano.tensor.ShapeError)."""


def _index(value, what, name):
    """`value` as a Python int, or a TypeError naming `name` (bools are no integers here)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what}: {name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: {name} must be an integer, got {value!r}") from None


def _axis(axis, ndim, what):
    axis = _index(axis, what, "axis")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim, msg_prefix=f"{what} of a {ndim}-d tensor")
    return axis % ndim


def slice_at_axis(sl, axis):
    """Return a tuple of slices applying `sl` to axis `axis` and leaving the other axes whole (PyTensor's,
    numpy's _slice_at_axis): ``x[slice_at_axis(slice(None, 1), 1)]`` is ``x[:, :1]``."""
    if not isinstance(sl, slice):
        raise TypeError(f"slice_at_axis: sl must be a slice, got {sl!r}")
    axis = _index(axis, "slice_at_axis", "axis")
    if axis < 0:
        raise ValueError(f"slice_at_axis: axis must be non-negative (the tuple starts at axis 0), got {axis}")
    return (slice(None),) * axis + (sl,) + (Ellipsis,)


def diff(x, n=1, axis=-1):
    """Return numpy.diff(x, n, axis): the n-th discrete difference along `axis` (slices subtracted n times)."""
    x = as_tensor_variable(x)
    n = _index(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, x.ndim, "diff")
    upper = tuple(slice(1, None) if a == axis else slice(None) for a in range(x.ndim))
    lower = tuple(slice(None, -1) if a == axis else slice(None) for a in range(x.ndim))
    for _ in range(n):
        x = neq(x[upper], x[lower]) if x.dtype == "bool" else sub(x[upper], x[lower])  # numpy: bool differs
    return x


def concat_with_broadcast(tensor_list, axis=0):
    """Concatenate `tensor_list` along `axis`, each broadcast first to the others' lengths on the other axes
    (PyTensor's)."""
    tensors = [as_tensor_variable(t) for t in tensor_list]
    if not tensors:
        raise ValueError("Cannot concatenate an empty list of tensors.")
    ndim = tensors[0].ndim
    if any(t.ndim != ndim for t in tensors):
        raise TypeError("Only tensors with the same number of dimensions can be concatenated. "
                        f"Input ndims were: {[t.ndim for t in tensors]}")
    if ndim == 0:
        raise ValueError("concat_with_broadcast: zero-dimensional tensors cannot be concatenated")
    axis = _axis(axis, ndim, "concat_with_broadcast")
    lengths = [constant(np.int64(1))] * ndim
    for t in tensors:
        for a in range(ndim):
            if a != axis and t.type.shape[a] != 1:
                lengths[a] = Shape_i(a)(t) if t.type.shape[a] is None else constant(np.int64(t.type.shape[a]))
    pieces = []
    for t in tensors:
        target = list(lengths)
        target[axis] = Shape_i(axis)(t) if t.type.shape[axis] is None else constant(np.int64(t.type.shape[axis]))
        pieces.append(broadcast_to(t, target))
    return concatenate(pieces, axis=axis)


def geomspace(start, stop, num=50, base=10.0, endpoint=True, dtype=None, axis=0):
    """Return `num` samples from `start` to `stop` spaced evenly on a log scale (numpy.geomspace; PyTensor's
    signature: `base` only changes the rounding). A zero endpoint gives NaN (numpy raises ValueError)."""
    start, stop = broadcast_arrays(as_tensor_variable(start), as_tensor_variable(stop))
    if np.dtype(start.dtype).kind == "c" or np.dtype(stop.dtype).kind == "c":
        raise TypeError("geomspace: complex start or stop is not supported")
    dt = np.result_type(start.dtype, stop.dtype, np.float64)  # numpy's: at least float64
    start, stop = cast(start, dt), cast(stop, dt)
    out_sign = sign(start)
    start, stop = true_div(start, out_sign), true_div(stop, out_sign)  # numpy's: positive, the sign put back last
    base_value = float(base)
    if base_value <= 0 or base_value == 1:
        raise ValueError(f"geomspace: base must be positive and not 1, got {base!r}")
    log_base = float(np.log10(base_value))  # a Python float: it takes start's dtype
    log_start, log_stop = log10(start), log10(stop)
    if base_value != 10.0:
        log_start, log_stop = true_div(log_start, log_base), true_div(log_stop, log_base)
    exponents = linspace(log_start, log_stop, num, endpoint=endpoint)
    result = cast(constant(np.asarray(base_value, dtype=dt)) ** exponents, dt)
    num_variable = as_tensor_variable(num)
    result = switch(gt(num_variable, 0), set_subtensor(result[:1], start), result)
    if endpoint:
        result = switch(gt(num_variable, 1), set_subtensor(result[-1:], stop), result)
    result = mul(result, out_sign)
    if result.ndim > 1 and axis != 0:
        result = moveaxis(result, 0, axis)
    return cast(result, dtype) if dtype is not None else result


class TensorCopy(DeepCopyOp):
    """A copy of its input (DeepCopyOp's C) whose gradient is the output gradient: PyTensor's tensor_copy."""

    def grad(self, inputs, output_grads):
        return [output_grads[0]]

    def R_op(self, inputs, eval_points):
        return [eval_points[0]]


tensor_copy = TensorCopy()


def identity(x):
    """Return a copy of `x` (PyTensor's identity, its tensor_copy: new storage, never a view of `x`; the
    gradient passes through)."""
    return tensor_copy(as_tensor_variable(x))


def extract_diag(x):
    """Return the main diagonal of `x`'s first two axes (PyTensor's deprecated name of diagonal(x))."""
    return diagonal(x)


def is_flat(var, ndim=1):
    """Return whether `var` has `ndim` dimensions (Theano's and PyTensor's, a Python bool)."""
    return as_tensor_variable(var).ndim == _index(ndim, "is_flat", "ndim")


def consider_constant(x):
    """Return `x`, with a zero gradient through it (Theano's consider_constant, zero_grad's older name)."""
    return zero_grad(as_tensor_variable(x))

"""Arrays made from a shape and a value: full, full_like, empty, empty_like, linspace, logspace, bartlett, tri,
tril and triu.

Graphs of Alloc, ARange, DimShuffle and elementwise ops, as PyTensor builds them; Bartlett runs numpy.bartlett
in perform (no C), as PyTensor's.
"""

from __future__ import annotations

import numpy as np

from opkit.config import config
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply, Variable
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import maximum, pow as pow_
from opkit.core.tensor.elementwise.elemwise_math import floor
from opkit.core.tensor.elementwise.logic import eq, ge, gt, invert, switch
from opkit.core.tensor.shapes.alloc import alloc, alloc_like, cast, known_dtype, shape_dims
from opkit.core.tensor.shapes.axes import broadcast_arrays, moveaxis
from opkit.core.tensor.shapes.creation import _dims, arange
from opkit.core.tensor.shapes.inc_subtensor import set_subtensor
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def _floatx():
    return config.floatX


def _value_dtype(value):
    """numpy.array(value).dtype for a Python value; a tensor's own dtype."""
    if isinstance(value, Variable):
        return value.dtype
    return np.asarray(value).dtype


def full(shape, fill_value, dtype=None):
    """Return a tensor of `shape` filled with `fill_value` (numpy.full; dtype: the value's unless given)."""
    dtype = known_dtype(dtype if dtype is not None else _value_dtype(fill_value), "full")
    value = cast(as_tensor_variable(np.asarray(fill_value, dtype=dtype) if not isinstance(fill_value, Variable)
                                    else fill_value), dtype)
    dims = _dims(shape, "full")
    if len(dims) < value.ndim:
        raise ValueError(f"full: the fill value's {value.ndim} dimensions do not fit the shape's {len(dims)}")
    return alloc(value, *dims)


def full_like(a, fill_value, dtype=None):
    """Return a tensor shaped like `a` filled with `fill_value` (numpy.full_like; dtype: a's unless given)."""
    a = as_tensor_variable(a)
    dtype = known_dtype(dtype if dtype is not None else a.dtype, "full_like")
    value = as_tensor_variable(fill_value)
    if value.ndim > a.ndim:
        raise ValueError(f"full_like: the fill value's {value.ndim} dimensions do not fit the {a.ndim} of {a}")
    return alloc_like(cast(value, dtype), a) if value.ndim or a.ndim else cast(value, dtype)


def empty(shape, dtype=None):
    """Return a tensor of `shape` whose values are not specified (numpy.empty); opkit's are zeros."""
    return full(shape, 0, dtype if dtype is not None else _floatx())


def empty_like(prototype, dtype=None):
    """Return a tensor shaped like `prototype` whose values are not specified (numpy.empty_like); zeros."""
    return full_like(prototype, 0, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """Return `num` evenly spaced samples from `start` to `stop` (numpy.linspace, its arithmetic and dtypes)."""
    if isinstance(num, (int, np.integer)) and not isinstance(num, bool):
        if num < 0:
            raise ValueError(f"linspace: num must be non-negative, got {num}")
    num = as_tensor_variable(num)
    if num.ndim != 0 or np.dtype(num.dtype).kind not in "iu":
        raise TypeError(f"linspace: num must be an integer, got {num} of type {num.type}")
    start, stop = broadcast_arrays(start, stop)
    samples = [np.zeros((), v.dtype) for v in (start, stop)]
    dt = np.result_type(*samples, 1.0)
    start, stop = cast(start, dt), cast(stop, dt)
    div = num - 1 if endpoint else num
    delta = stop - start
    y = cast(arange(0, num, 1, dtype="int64"), dt).dimshuffle([0] + ["x"] * delta.ndim)
    step = delta / cast(maximum(div, 1), dt)
    y = switch(gt(div, 0), switch(eq(step, 0), y / cast(maximum(div, 1), dt) * delta, y * step), y * delta) + start
    if endpoint:
        last = set_subtensor(y[-1:], stop)  # a slice: no IndexError when num is 0
        y = switch(gt(num, 1), last, y)
    if delta.ndim:
        y = moveaxis(y, 0, axis)
    out_dtype = known_dtype(dtype if dtype is not None else dt, "linspace")
    if np.dtype(out_dtype).kind in "iu":
        y = floor(y)
    y = cast(y, out_dtype)
    if retstep:
        nan = constant(np.asarray(np.nan, dtype=dt))
        return y, switch(gt(div, 0), step, nan + delta * 0)
    return y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """Return `base` to the powers linspace(start, stop, num) (numpy.logspace)."""
    y = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    base = as_tensor_variable(base)
    if base.ndim:
        raise ValueError(f"logspace: base must be a scalar, got {base} with {base.ndim} dimensions")
    result = pow_(cast(base, y.dtype) if base.owner is None and "weak_value" in base.tag else base, y)
    return cast(result, dtype) if dtype is not None else result


class Bartlett(Op):
    """numpy.bartlett(M): the triangular window of M points, float64 (perform: numpy, as PyTensor's)."""

    __props__ = ()

    def make_node(self, M):
        M = as_tensor_variable(M)
        if M.ndim != 0 or np.dtype(M.dtype).kind not in "iu":
            raise TypeError(f"bartlett: M must be an integer scalar, got {M} of type {M.type}")
        return Apply(self, [M], [TensorType("float64", (None,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.bartlett(int(inputs[0]))

    def infer_shape(self, node, input_shapes):
        return [(maximum(cast(node.inputs[0], "int64"), 0),)]

    def shape_checks(self, node, input_shapes):
        return []

    def connection_pattern(self, node):
        return [[False]]

    def grad(self, inputs, output_grads):
        return [disconnected_type()]


def bartlett(M):
    """Return numpy.bartlett(M), the triangular window of `M` points (empty when M <= 0)."""
    return Bartlett()(M)


class NDGrid:
    """``mgrid[0:3, 1:5:2]`` and ``ogrid[...]``: PyTensor's grids of aranges, a list of one tensor per slice.

    mgrid's tensors are broadcast to the whole grid; ogrid's keep length 1 on the other axes (numpy's values;
    numpy's mgrid stacks them into one array).
    """

    def __init__(self, sparse=False):
        self.sparse = sparse

    def __getitem__(self, key):
        slices = key if isinstance(key, tuple) else (key,)
        name = "ogrid" if self.sparse else "mgrid"
        for sl in slices:
            if not isinstance(sl, slice):
                raise TypeError(f"{name}: index it with slices (start:stop:step), got {sl!r}")
            if isinstance(sl.step, complex):
                raise NotImplementedError(f"{name}: a complex step (a number of points) is not implemented, as in "
                                          "PyTensor; use linspace")
        ndim = len(slices)
        ranges = [arange(0 if sl.start is None else sl.start, sl.stop, 1 if sl.step is None else sl.step)
                  for sl in slices]
        ranges = [r.dimshuffle(["x"] * j + [0] + ["x"] * (ndim - 1 - j)) for j, r in enumerate(ranges)]
        return ranges if self.sparse else broadcast_arrays(*ranges)


mgrid = NDGrid()
ogrid = NDGrid(sparse=True)


def tri(N, M=None, k=0, dtype=None):
    """Return numpy.tri(N, M, k): ones at and below the `k` diagonal (dtype: config.floatX unless given)."""
    M = N if M is None else M
    rows = arange(0, N, 1, dtype="int64").dimshuffle(0, "x")
    columns = arange(0, M, 1, dtype="int64").dimshuffle("x", 0)
    return cast(ge(rows + k, columns), dtype if dtype is not None else _floatx())


def _triangle(m, k, what, lower):
    m = as_tensor_variable(m)
    if m.ndim == 0:
        raise ValueError(f"{what}: m must have at least one dimension, got the 0-d {m}")
    dims = shape_dims(m)
    rows, columns = (dims[0], dims[0]) if m.ndim == 1 else dims[-2:]
    mask = tri(rows, columns, k if lower else k - 1, dtype="bool")
    return switch(mask if lower else invert(mask), m, constant(np.zeros((), m.dtype)))


def tril(m, k=0):
    """Return `m` with the elements above the `k` diagonal of its last two axes zeroed (numpy.tril)."""
    return _triangle(m, k, "tril", lower=True)


def triu(m, k=0):
    """Return `m` with the elements below the `k` diagonal of its last two axes zeroed (numpy.triu)."""
    return _triangle(m, k, "triu", lower=False)


__all__ = ["Bartlett", "NDGrid", "bartlett", "empty", "empty_like", "full", "full_like", "linspace", "logspace",
           "mgrid", "ogrid", "tri", "tril", "triu"]

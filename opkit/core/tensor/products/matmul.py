"""Products: matmul (and `@`), outer, tensordot, batched_dot, with numpy's shapes and dtypes.

Vectors and matrices go through Dot (numpy.dot, BLAS for floats); stacks of matrices through Matmul, which
broadcasts the batch axes as numpy.matmul (PyTensor's Blockwise of Dot) and runs numpy.matmul in perform
(numpy's BLAS loops: no C of opkit's own would be faster). tensordot is a transpose and reshape of each
operand around one 2-d Dot; batched_dot (Theano's) a Matmul over reshaped stacks; outer a broadcast
multiply. (trace is shapes/diagonal.py's: the diagonal, summed.)
"""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import add, dot, mul, upcast
from opkit.core.tensor.elementwise.logic import eq, switch
from opkit.core.tensor.reductions.reduction import normalize_axis, sum
from opkit.core.tensor.shapes.alloc import cast, is_float_dtype, shape_dims, transpose
from opkit.core.tensor.shapes.reshape import reshape
from opkit.core.tensor.shapes.shape_ops import shape
from opkit.core.tensor.shapes.sum_to_shape import sum_to_shape
from opkit.core.tensor.types.shape_checks import check_chain, shape_template
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def _broadcast_static(a, b, what):
    """numpy's broadcast of two static batch shapes (None: unknown), or ValueError naming `what`."""
    a, b = tuple(a), tuple(b)
    n = len(a) if len(a) > len(b) else len(b)
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"{what}: the batch shapes {a} and {b} do not broadcast")
    return tuple(out)


class Matmul(Op):
    """numpy.matmul of two tensors of 2 or more dimensions: matrix products over broadcast batch axes."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.ndim < 2 or y.ndim < 2:
            raise TypeError(f"Matmul takes tensors of 2 or more dimensions, got {x.ndim}-d and {y.ndim}-d "
                            "(matmul promotes vectors)")
        xs, ys = x.type.shape, y.type.shape
        if xs[-1] is not None and ys[-2] is not None and xs[-1] != ys[-2]:
            raise ValueError(f"matmul: the inner lengths differ: x's last axis has {xs[-1]}, y's second to "
                             f"last {ys[-2]}")
        batch = _broadcast_static(xs[:-2], ys[:-2], "matmul")
        return Apply(self, [x, y], [TensorType(upcast(x.dtype, y.dtype), batch + (xs[-2], ys[-1]))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(np.matmul(*inputs), dtype=node.outputs[0].dtype)

    def shape_checks(self, node, input_shapes):
        """The core dimensions must agree, as numpy's matmul says (the inferred shape keeps that error)."""
        xs, ys = input_shapes
        template = (f"matmul: shapes {shape_template(len(xs), ',')} and {shape_template(len(ys), ',')}: "
                    f"core dimension {{}} (dim {len(xs) - 1}) != {{}} (dim {len(ys) - 2})")
        return [check_chain([("ValueError", template, "eq", xs[-1], ys[-2], (*xs, *ys, xs[-1], ys[-2]))])]

    def infer_shape(self, node, input_shapes):
        xs, ys = input_shapes
        batch = []
        n = max(len(xs), len(ys)) - 2
        xb = [constant(np.int64(1))] * (n - len(xs) + 2) + list(xs[:-2])
        yb = [constant(np.int64(1))] * (n - len(ys) + 2) + list(ys[:-2])
        static = node.outputs[0].type.shape
        for i, (a, b) in enumerate(zip(xb, yb)):  # numpy's broadcast: a length 1 takes the other's (0 too)
            batch.append(static[i] if static[i] is not None else switch(eq(a, 1), b, a))
        return [tuple(batch) + (xs[-2], ys[-1])]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        g, = output_grads
        gx = _sum_to(matmul(g, swapaxes(y)), x)
        gy = _sum_to(matmul(swapaxes(x), g), y)
        return [cast(gx, x.dtype) if is_float_dtype(x.dtype) else gx,
                cast(gy, y.dtype) if is_float_dtype(y.dtype) else gy]

    def grad(self, inputs, output_grads):
        return self.L_op(inputs, [self(*inputs)], output_grads)

    def R_op(self, inputs, eval_points):
        x, y = inputs
        ex, ey = eval_points
        terms = [t for t in ((matmul(ex, y) if ex is not None else None),
                             (matmul(x, ey) if ey is not None else None)) if t is not None]
        return [None if not terms else terms[0] if len(terms) == 1 else add(*terms)]


_matmul = Matmul()


def swapaxes(x):
    """Return `x` with its last two axes exchanged."""
    order = list(range(x.ndim))
    order[-2], order[-1] = order[-1], order[-2]
    return transpose(x, order)


def _sum_to(g, x):
    """The gradient `g` of a broadcast operand summed back to x's shape (leading axes, then runtime 1s)."""
    extra = g.ndim - x.ndim
    if extra:
        g = sum(g, tuple(range(extra)))
    return sum_to_shape(g, shape(x))


def matmul(x1, x2, dtype=None):
    """Return numpy.matmul(x1, x2): vectors promoted and dropped again, batch axes broadcast; no scalars."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"matmul: an operand is a scalar ({x1.ndim}-d and {x2.ndim}-d): matmul takes "
                         "vectors and stacks of matrices; use mul for a scalar")
    if x1.ndim <= 2 and x2.ndim <= 2:
        out = dot(x1, x2)
    else:
        left = x1.dimshuffle("x", 0) if x1.ndim == 1 else x1
        right = x2.dimshuffle(0, "x") if x2.ndim == 1 else x2
        out = _matmul(left, right)
        if x1.ndim == 1:  # the promoted axis (length 1) dropped
            out = out[(slice(None),) * (out.ndim - 2) + (0,)]
        elif x2.ndim == 1:
            out = out[(slice(None),) * (out.ndim - 1) + (0,)]
    return cast(out, dtype) if dtype is not None else out


def outer(x, y):
    """Return numpy.outer(x, y): every element of flattened `x` times every element of flattened `y`."""
    x, y = (v if v.ndim == 1 else v.flatten() for v in map(as_tensor_variable, (x, y)))
    return mul(x.dimshuffle(0, "x"), y.dimshuffle("x", 0))


def _product(dims):
    out = constant(np.int64(1))
    for d in dims:
        out = mul(out, d)
    return out


def _tensordot_axes(a, b, axes):
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(f"tensordot: axes={n} must be between 0 and the operands' dimensions "
                             f"({a.ndim} and {b.ndim})")
        return list(range(a.ndim - n, a.ndim)), list(range(n))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an integer or a pair of axis lists, got {axes!r}") from None
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: axes {axes!r} name {len(a_axes)} axes of a and {len(b_axes)} of b; "
                         "name as many of each")
    normalize_axis(a_axes, a.ndim, "tensordot")  # raises for an axis out of range or named twice
    normalize_axis(b_axes, b.ndim, "tensordot")
    return [int(i) % a.ndim for i in a_axes], [int(i) % b.ndim for i in b_axes]


def tensordot(a, b, axes=2):
    """Return numpy.tensordot(a, b, axes): the sum of products over a's `axes[0]` and b's `axes[1]`
    (an integer N: a's last N axes and b's first N)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    for i, j in zip(a_axes, b_axes):
        sa, sb = a.type.shape[i], b.type.shape[j]
        if sa is not None and sb is not None and sa != sb:
            raise ValueError(f"tensordot: shape mismatch for sum: a's axis {i} has length {sa}, b's axis {j} {sb}")
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [j for j in range(b.ndim) if j not in b_axes]
    a_dims, b_dims = shape_dims(a), shape_dims(b)
    summed = _product([a_dims[i] for i in a_axes])
    left = reshape(transpose(a, a_free + a_axes), [_product([a_dims[i] for i in a_free]), summed], ndim=2)
    right = reshape(transpose(b, b_axes + b_free), [summed, _product([b_dims[j] for j in b_free])], ndim=2)
    out_dims = [a_dims[i] for i in a_free] + [b_dims[j] for j in b_free]
    return reshape(dot(left, right), out_dims, ndim=len(out_dims))


def batched_dot(a, b):
    """Return Theano's batched_dot: out[i] = tensordot(a[i], b[i]) over a's last axis and b's axis
    max(1, b.ndim - 2) (numpy.dot of a[i] and b[i] for 2- and 3-d operands); a vector multiplies each batch."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        raise TypeError(f"batched_dot: {'a' if a.ndim == 0 else 'b'} must have at least one (batch) axis, "
                        "got a scalar")
    if a.ndim == 1:
        return mul(a.dimshuffle(0, *["x"] * (b.ndim - 1)), b)
    if b.ndim == 1:
        return mul(a, b.dimshuffle(0, *["x"] * (a.ndim - 1)))
    k_b = max(1, b.ndim - 2)
    a_dims, b_dims = shape_dims(a), shape_dims(b)
    a_free = list(range(1, a.ndim - 1))
    b_free = [j for j in range(1, b.ndim) if j != k_b]
    left = reshape(a, [a_dims[0], _product([a_dims[i] for i in a_free]), a_dims[-1]], ndim=3)
    right = reshape(transpose(b, [0, k_b, *b_free]), [b_dims[0], b_dims[k_b], _product([b_dims[j] for j in b_free])],
                    ndim=3)
    out_dims = [a_dims[0]] + [a_dims[i] for i in a_free] + [b_dims[j] for j in b_free]
    return reshape(_matmul(left, right), out_dims, ndim=len(out_dims))

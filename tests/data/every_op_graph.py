"""A graph holding every built-in op (test_trust3_pickle.py), importable by name in a fresh process.

`reverse_rows` is a module-level as_op op: plain pickle sends it by reference.
"""

import numpy as np

import opkit
import opkit.tensor as ot
from opkit.core.builtin_ops import view_op
from opkit.core.scalar_type import DTYPES
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars.builtins import builtin_scalar_ops

VALUES = [np.array([[1.5, -2.0, 0.0], [3.0, 0.25, -1.0]]), np.array([1.0, 4.0, 9.0]), np.int64(4),
          np.array([[3, -2, 0], [5, 1, 7]])]


@opkit.as_op(itypes=[ot.dmatrix], otypes=[ot.dmatrix])
def reverse_rows(m):
    return m[::-1].copy()


def scalar_function_nodes(x, i):
    """One Elemwise node per built-in scalar function (integer inputs for the bitwise ones)."""
    outputs = []
    for scalar_op in builtin_scalar_ops().values():
        try:
            outputs.append(Elemwise(scalar_op)(*[x] * scalar_op.nin))
        except TypeError:
            outputs.append(Elemwise(scalar_op)(*[i] * scalar_op.nin))
    return outputs


def graph_of_every_op():
    """Return (inputs, outputs): every built-in op class, scalar function and cast, and shapes to infer."""
    x, v, n, i = ot.dmatrix("x"), ot.dvector("v"), ot.lscalar("n"), ot.lmatrix("i")
    outputs = [ot.cast(x, "int32"), x.T, ot.dot(x, v), ot.sum(x, axis=0), ot.prod(x), ot.max(x, axis=1), ot.min(x),
               ot.mean(x), ot.argmax(x, axis=0), ot.argmin(x), ot.reshape(x, (-1,)), ot.specify_shape(v, (3,)),
               x[1:, 0], ot.concatenate([x, x]), ot.stack([n, n]), ot.alloc(v, 2, 3), ot.arange(n),
               ot.ones_like(x), x + v, ot.exp(x) + 1, (ot.tanh(v) + 2.0) * 3.0, ot.sum(ot.sqrt(v) * 3.0),
               x > 0, x < 0, ot.eq(x, 1), ot.neq(x, 1), ot.switch(x > 0, x, -x), view_op(x), reverse_rows(x),
               opkit.grad(ot.prod(x), x), opkit.grad(ot.sum(x[1:, 0]), x), ot.set_subtensor(x[1:, 0], v[:1]),
               ot.inc_subtensor(x[0], v), opkit.grad(ot.sum(x * v), v),
               ot.exp(opkit.scalar.as_scalar(ot.sum(x)))]  # ScalarFromTensor, then TensorFromScalar
    outputs += [ot.cast(x, dtype) for dtype in DTYPES]
    outputs += scalar_function_nodes(x, i)
    outputs += [o.shape for o in outputs[:20]] + [ot.arange(n).shape, x[1:].shape, ot.reshape(x, (-1, 3)).shape]
    outputs += [x[ot.cast(i[0, 2], "uint64")].shape]  # IndexValue: the shape check reads a uint64 index
    outputs += gradient_marker_nodes(x, v)
    outputs += tensor_language_nodes(x, v, n)
    return [x, v, n, i], outputs


def tensor_language_nodes(x, v, n):
    """The ops of the tensor language's functions (issue 48): indexing, sorting and scans, shapes, products."""
    rows, cols = np.array([1, 0, 1]), np.array([2, 0, 1])
    outputs = [x[rows], ot.inc_subtensor(x[rows], v), ot.set_subtensor(x[rows], v),  # AdvancedSubtensor1 and inc
               x[rows, cols], ot.inc_subtensor(x[rows, cols], 1.0), x[x > 0],  # AdvancedSubtensor, inc, a mask
               ot.take_along_axis(x, ot.argsort(x, axis=1), axis=1), ot.sort(x), ot.cumsum(x, axis=0),
               opkit.grad(ot.sum(ot.sort(x, axis=1) * x), x),  # sort's gradient gathers along the axis
               ot.matmul(x[None], x.T[None]), ot.eye(n), ot.diag(v), ot.diagonal(x),
               opkit.grad(ot.sum(ot.diagonal(x) * 2.0), x), ot.fill_diagonal(x, 0.0), ot.fill_diagonal_offset(x, 0.0, 1),
               ot.repeat(v, 2), ot.repeat(v, np.array([1, 2, 0])), opkit.grad(ot.sum(ot.repeat(v, 2) * 2.0), v),
               ot.take(v, np.array([0, 2])), opkit.grad(ot.sum(ot.take(v, np.array([0, 2, 2])) * 2.0), v),
               ot.choose(np.array([0, 1, 0]), [v, v * 2.0]), ot.bartlett(n),
               ot.unravel_index(np.array([1, 4]), (2, 3))[0], ot.ravel_multi_index((rows, cols), (2, 3)),
               x[ot.argsort(v[:2])].shape,  # IndicesInRange: the shape check of a computed index
               ot.identity(v), ot.searchsorted(ot.sort(v), v), ot.unique(v)]  # TensorCopy, SearchsortedOp, Unique
    square = x[:2, :2]  # linalg's perform ops (numpy.linalg); x's first 2x2 block stands for a square matrix
    spd = ot.dot(square, square.T) + ot.eye(2)  # symmetric positive definite for VALUES' x
    outputs += [ot.matrix_inverse(square), ot.det(square), ot.solve(square, v[:2]), ot.cholesky(spd),
                *ot.eigh(spd), *ot.svd(x)]
    return outputs


def gradient_marker_nodes(x, v):
    """The gradient markers (identities forward, rewritten away in FAST_RUN) and a Jacobian's JacobianRows."""
    from opkit.core.gradient_ops import disconnected_grad, grad_clip, grad_scale, undefined_grad, zero_grad
    from opkit.link.jacobian import jacobian

    return [zero_grad(x), disconnected_grad(x), undefined_grad(v), grad_clip(x, -1.0, 1.0), grad_scale(v, 2.0),
            jacobian(ot.exp(v) * 2.0, v)]

"""theano.tensor.blas: opkit's BLAS for C ops (``ldflags()``, ``blas_header_text()``; opkit.cop.blas), and
Theano's BLAS calls as graphs of opkit's ops.

``gemm_inplace(Z, a, X, Y, b)`` and ``gemm_no_inplace`` are ``b*Z + a*dot(X, Y)``, ``gemv_*(y, a, A, x, b)``
is ``b*y + a*dot(A, x)``, ``ger(A, a, x, y)`` and ``ger_destructive`` are ``A + a*outer(x, y)``, ``dot22``
is ``dot`` and ``dot22scalar(X, Y, a)`` is ``a*dot(X, Y)``: the same values (opkit's dot calls BLAS),
computed without overwriting an input. Theano's op classes (``Gemm``, ``Gemv``, ``Ger``, ``Dot22``,
``BatchedDot``) are its own ops, not opkit's: a port that subclasses them vendors blas.py.
``optdb``, ``blas_optdb`` and ``local_optimizer`` register rewrites that are never run.
"""

from opkit.compat.theano.gof.opt import NoOpDB, local_optimizer
from opkit.compat.theano.gof.graph import view_roots
from opkit.cop.blas import blas_header_text, blas_header_version, ldflags, mkl_threads_text, openblas_threads_text
from opkit.tensor import as_tensor_variable, dot

optdb = NoOpDB("optdb")
blas_optdb = NoOpDB("blas_optdb")


def gemm_no_inplace(Z, a, X, Y, b):  # noqa: N803  (Theano's argument names)
    """Return b*Z + a*dot(X, Y)."""
    return b * as_tensor_variable(Z) + a * dot(X, Y)


def gemv_no_inplace(y, a, A, x, b):  # noqa: N803
    """Return b*y + a*dot(A, x)."""
    return b * as_tensor_variable(y) + a * dot(A, x)


def ger(A, a, x, y):  # noqa: N803
    """Return A + a*outer(x, y)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    return as_tensor_variable(A) + a * (x.dimshuffle(0, "x") * y.dimshuffle("x", 0))


def dot22(X, Y):  # noqa: N803
    """Return dot(X, Y) of two matrices."""
    return dot(X, Y)


def dot22scalar(X, Y, a):  # noqa: N803
    """Return a*dot(X, Y)."""
    return a * dot(X, Y)


gemm_inplace, gemv_inplace, ger_destructive = gemm_no_inplace, gemv_no_inplace, ger

__all__ = ["blas_header_text", "blas_header_version", "blas_optdb", "dot22", "dot22scalar", "gemm_inplace",
           "gemm_no_inplace", "gemv_inplace", "gemv_no_inplace", "ger", "ger_destructive", "ldflags",
           "local_optimizer", "mkl_threads_text", "openblas_threads_text", "optdb", "view_roots"]

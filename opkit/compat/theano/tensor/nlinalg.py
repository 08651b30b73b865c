"""theano.tensor.nlinalg: opkit's numpy.linalg in perform ops (opkit/core/tensor/products/linalg.py).

``matrix_inverse``, ``det``, ``eigh``, ``svd``, their op classes, ``norm(x, ord)``, ``matrix_dot``, and
``trace``/``diag``/``extract_diag`` (opkit.tensor's). Theano's other nlinalg names (qr, pinv, eig, lstsq,
matrix_power, tensorinv, tensorsolve) are not here: importing one raises ImportError.
"""

from functools import reduce as _reduce

from opkit.core.tensor.products.linalg import (SVD, Det, Eigh, MatrixInverse, det, eigh, matrix_inverse, norm,
                                               svd)
from opkit.tensor import diag, dot, extract_diag, trace


def matrix_dot(*args):
    """Theano's matrix_dot: dot(dot(a, b), c)... of its arguments, left to right."""
    return _reduce(dot, args)


__all__ = ["Det", "Eigh", "MatrixInverse", "SVD", "det", "diag", "eigh", "extract_diag", "matrix_dot",
           "matrix_inverse", "norm", "svd", "trace"]

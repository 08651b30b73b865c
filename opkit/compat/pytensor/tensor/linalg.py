"""pytensor.tensor.linalg: opkit's numpy.linalg in perform ops (opkit/core/tensor/products/linalg.py).

``inv`` (opkit's matrix_inverse), ``det``, ``solve``, ``cholesky``, ``eigh``, ``svd``, ``norm`` and their op
classes. PyTensor's other linalg functions (qr, lu, expm, solve_triangular, slogdet, pinv...) are not here:
importing one raises ImportError.
"""

from opkit.core.tensor.products.linalg import (SVD, Cholesky, Det, Eigh, MatrixInverse, Solve, cholesky, det, eigh,
                                               matrix_inverse, norm, solve, svd)

inv = matrix_inverse

__all__ = ["Cholesky", "Det", "Eigh", "MatrixInverse", "SVD", "Solve", "cholesky", "det", "eigh", "inv",
           "matrix_inverse", "norm", "solve", "svd"]

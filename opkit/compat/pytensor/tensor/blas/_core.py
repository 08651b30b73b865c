"""pytensor.tensor.blas._core: ``ldflags`` (opkit.cop.blas), ``view_roots`` (Theano's, following view_map) and
``must_initialize_y_gemv`` (PyTensor's: whether scipy's gemv leaves NaN in y when beta is 0)."""

import functools

from opkit.compat.theano.gof.graph import view_roots
from opkit.cop.blas import blas_header_text, blas_header_version, ldflags

__all__ = ["blas_header_text", "blas_header_version", "ldflags", "must_initialize_y_gemv", "view_roots"]


@functools.cache
def must_initialize_y_gemv():
    """Return True if scipy's gemv propagates y's NaN with beta = 0 (then y must be zeroed first), as PyTensor's."""
    import numpy as np
    import scipy.linalg

    y = np.full((2,), np.nan)
    gemv = scipy.linalg.get_blas_funcs("gemv", dtype=y.dtype)
    gemv(1.0, np.ones((2, 2)).T, np.ones((2,)), 0.0, y, overwrite_y=True, trans=True)
    return bool(np.isnan(y).any())

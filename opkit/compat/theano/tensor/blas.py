"""theano.tensor.blas: opkit's BLAS for C ops (``ldflags()``, ``blas_header_version()``; opkit.cop.blas)."""

from opkit.cop.blas import blas_header_text, blas_header_version, ldflags, mkl_threads_text, openblas_threads_text

__all__ = ["blas_header_text", "blas_header_version", "ldflags", "mkl_threads_text", "openblas_threads_text"]

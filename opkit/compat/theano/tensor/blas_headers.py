"""theano.tensor.blas_headers: ``blas_header_text()`` (Fortran and CBLAS prototypes; opkit.cop.blas)."""

from opkit.cop.blas import blas_header_text, blas_header_version, mkl_threads_text, openblas_threads_text

__all__ = ["blas_header_text", "blas_header_version", "mkl_threads_text", "openblas_threads_text"]

"""pytensor.tensor.blas.c_code.blas_headers: ``blas_header_text()`` and its version (opkit.cop.blas)."""

from opkit.cop.blas import blas_header_text, blas_header_version

__all__ = ["blas_header_text", "blas_header_version"]

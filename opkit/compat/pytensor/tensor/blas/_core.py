"""pytensor.tensor.blas._core: ``ldflags`` (opkit.cop.blas), ``view_roots`` (Theano's, following view_map)."""

from opkit.compat.theano.gof.graph import view_roots
from opkit.cop.blas import blas_header_text, blas_header_version, ldflags

__all__ = ["blas_header_text", "blas_header_version", "ldflags", "view_roots"]

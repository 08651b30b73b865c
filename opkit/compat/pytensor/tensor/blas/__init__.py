"""pytensor.tensor.blas: opkit's BLAS for C ops (``ldflags``, ``blas_header_text``) and ``view_roots``.

PyTensor's BLAS op classes (``Gemv``, ``Ger``, ``CGemv``, ``CGer``, ``Gemm``) are its own ops, not
opkit's: a port vendors them (issue 43 ports blas_c's CGemv and CGer by import lines).
"""

from opkit.compat.pytensor.tensor.blas import _core, c_code  # noqa: F401
from opkit.compat.pytensor.tensor.blas._core import blas_header_text, blas_header_version, ldflags, view_roots

__all__ = ["blas_header_text", "blas_header_version", "ldflags", "view_roots"]

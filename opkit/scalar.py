"""opkit.scalar: scalar types (``opkit.scalar.float64``), ``as_scalar`` and ``upcast``.

``theano.scalar`` / ``pytensor.scalar`` port to ``opkit.scalar``: ``ScalarType(dtype)``
is one number held in C as a variable of the numpy C type (``npy_float64``).
"""

from opkit.core.scalar_type import DTYPES, SCALAR_TYPES, ScalarType, as_scalar
from opkit.core.tensor.elementwise.basic import upcast

bool = SCALAR_TYPES["bool"]  # noqa: A001 - the dtype's name, as numpy and PyTensor spell it
int8, int16, int32, int64 = (SCALAR_TYPES[d] for d in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (SCALAR_TYPES[d] for d in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (SCALAR_TYPES[d] for d in ("float16", "float32", "float64"))
complex64, complex128 = SCALAR_TYPES["complex64"], SCALAR_TYPES["complex128"]

__all__ = ["ScalarType", "as_scalar", "upcast", *DTYPES]

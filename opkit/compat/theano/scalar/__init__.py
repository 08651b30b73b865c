"""theano.scalar: opkit.scalar's types (``theano.scalar.int32``, ``bool``), its scalar-op API and ops.

``exp`` (and the other ops Theano's C reads ``c_code_contiguous_raw`` from) is opkit's op seen
through a view whose ``c_code_contiguous_raw`` raises MethodNotDefined: Theano's vectorized
(AMD LibM) path, which its ops try and fall back from; opkit has none.
"""

from opkit.scalar import *  # noqa: F403
from opkit.scalar import __all__ as _names
from opkit.compat.theano.scalar import basic  # noqa: F401
from opkit.compat.theano.scalar.basic import Scalar, exp, log  # noqa: F401  (Scalar: Theano's ScalarType name)
from opkit.compat.pytensor.scalar import constant, identity

__all__ = [*_names, "basic", "Scalar", "constant", "identity"]

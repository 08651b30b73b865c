"""pytensor.scalar.basic's names for a port's multi-name import: opkit.scalar's, plus ``constant``, ``identity``,
``ScalarConstant`` and ``ScalarVariable``.

``constant(x, name=None, dtype=None)`` is a 0-d tensor constant (opkit builds a scalar op's
gradient on tensor variables); ``identity(x)`` returns `x` itself (PyTensor's makes a copy node,
which only its ScalarLoop needs; opkit has no ScalarLoop).
"""

from opkit.core.scalar_type import ScalarConstant, ScalarVariable
from opkit.scalar import *  # noqa: F403
from opkit.scalar import __all__ as _names
from opkit.tensor import constant as _tensor_constant


def constant(x, name=None, dtype=None):
    """PyTensor's scalar ``constant``: here a 0-d tensor constant of `dtype` (numpy's type of `x` if None)."""
    return _tensor_constant(x, name=name, dtype=dtype)


def identity(x):
    """PyTensor's scalar identity, at graph level: `x` itself."""
    return x


__all__ = [*_names, "ScalarConstant", "ScalarVariable", "constant", "identity"]

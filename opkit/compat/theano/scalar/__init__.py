"""theano.scalar: opkit.scalar's types (``theano.scalar.int32``, ``bool``) and scalar ops."""

from opkit.scalar import *  # noqa: F403
from opkit.scalar import __all__  # noqa: F401
from opkit.compat.theano.scalar import basic  # noqa: F401

"""theano.scalar.basic: opkit.scalar's names."""

from opkit.scalar import *  # noqa: F403
from opkit.scalar import __all__  # noqa: F401

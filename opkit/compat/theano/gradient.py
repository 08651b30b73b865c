"""theano.gradient: opkit.gradient's names."""

from opkit.gradient import *  # noqa: F403
from opkit.gradient import __all__  # noqa: F401

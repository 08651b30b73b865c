"""theano.tensor.basic: opkit.tensor's names."""

from opkit.tensor import *  # noqa: F403
from opkit.tensor import __all__  # noqa: F401

"""pytensor.tensor.basic: the tensor functions, opkit.tensor's."""

from opkit.compat.pytensor.tensor import *  # noqa: F403
from opkit.compat.pytensor.tensor import __all__  # noqa: F401

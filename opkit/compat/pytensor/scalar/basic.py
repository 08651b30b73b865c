"""pytensor.scalar.basic: the names of ``opkit.compat.pytensor.scalar`` at the path PyTensor ops import them from."""

from opkit.compat.pytensor.scalar import *  # noqa: F403
from opkit.compat.pytensor.scalar import __all__  # noqa: F401

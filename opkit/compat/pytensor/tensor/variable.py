"""pytensor.tensor.variable: TensorVariable, TensorConstant, opkit.tensor's."""

from opkit.compat.pytensor.tensor._namespace import *  # noqa: F403
from opkit.compat.pytensor.tensor._namespace import __all__  # noqa: F401

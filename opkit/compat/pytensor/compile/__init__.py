"""pytensor.compile: ``function``, ``In``, ``shared``, ``get_mode`` and the modes, opkit's, at PyTensor's path."""

from opkit import DebugMode, shared
from opkit.compile.io import In
from opkit.compat.pytensor.compile.function import function
from opkit.compat.pytensor.compile.mode import Mode, get_mode

__all__ = ["DebugMode", "In", "Mode", "function", "get_mode", "shared"]

# Out at pytensor.compile (and pytensor.Out, through the package's _NAMES).
from opkit.compat.pytensor.compile.function import Out  # noqa: E402

__all__ += ["Out"]

# get_default_mode at pytensor.compile, as PyTensor's tests reach it (pytensor.compile.get_default_mode()).
from opkit.compat.pytensor.compile.mode import get_default_mode  # noqa: E402

__all__ += ["get_default_mode"]

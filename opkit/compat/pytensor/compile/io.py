"""pytensor.compile.io: ``In``, opkit's (``opkit.compile.io``)."""

from opkit.compile.io import In

__all__ = ["In"]

# Out at PyTensor's path (opkit.compat.pytensor.compile.function).
from opkit.compat.pytensor.compile.function import Out  # noqa: E402

__all__ += ["Out"]

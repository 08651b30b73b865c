"""pytensor.compile.maker: ``function`` (with PyTensor's mode names) and ``UnusedInputError``, opkit's."""

from opkit.compat.pytensor.compile.function import function
from opkit.link.function import UnusedInputError

__all__ = ["UnusedInputError", "function"]

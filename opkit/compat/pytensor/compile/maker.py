"""pytensor.compile.maker: ``function`` (with PyTensor's mode names) and ``UnusedInputError``, opkit's."""

from opkit.compat.pytensor.compile.function import function
from opkit.link.function import UnusedInputError

__all__ = ["UnusedInputError", "function"]

# FunctionMaker: what rewrites and links a function's graph (kept as f.maker), opkit's.
from opkit.link.function import FunctionMaker  # noqa: E402

__all__ += ["FunctionMaker"]

"""pytensor.compile.executor: ``Function``, the class of what ``function`` returns (opkit's FunctionAPI)."""

from opkit.link.function import FunctionAPI as Function

__all__ = ["Function"]

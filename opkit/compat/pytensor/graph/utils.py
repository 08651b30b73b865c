"""pytensor.graph.utils: ``MissingInputError``, ``MethodNotDefined``, opkit's."""

from opkit.core.type import MethodNotDefined
from opkit.link.function import MissingInputError

__all__ = ["MethodNotDefined", "MissingInputError"]

"""pytensor.graph.type: ``Type``, opkit's."""

from opkit.core.type import Type

__all__ = ["Type"]

"""pytensor.graph.null_type: ``NullType``, the type of an undefined gradient (opkit.gradient's)."""

from opkit.gradient import NullType

__all__ = ["NullType"]

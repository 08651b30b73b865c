"""pytensor.graph.fg: ``FunctionGraph``, opkit's."""

from opkit.core.fgraph import FunctionGraph

__all__ = ["FunctionGraph"]

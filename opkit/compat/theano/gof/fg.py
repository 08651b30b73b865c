"""theano.gof.fg: ``FunctionGraph`` (opkit's: a private copy of a graph, ``FunctionGraph(inputs, outputs)``)."""

from opkit.core.fgraph import FunctionGraph

__all__ = ["FunctionGraph"]

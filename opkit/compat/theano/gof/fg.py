"""theano.gof.fg: ``FunctionGraph`` (opkit's: a private copy of a graph) and ``MissingInputError``."""

from opkit.core.fgraph import FunctionGraph

_LAZY = {"MissingInputError": "opkit.link.function"}
__all__ = ["FunctionGraph", "MissingInputError"]


def __getattr__(name):
    """Resolve the names other opkit modules own on first use: MissingInputError."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

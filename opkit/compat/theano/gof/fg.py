"""theano.gof.fg: ``FunctionGraph`` (opkit's: a private copy of a graph), ``MissingInputError``,
``InconsistencyError``."""

from opkit.core.fgraph import FunctionGraph

_LAZY = {"MissingInputError": "opkit.link.function"}
__all__ = ["FunctionGraph", "InconsistencyError", "MissingInputError"]


class InconsistencyError(Exception):
    """Theano's error for a graph that breaks a rule of its own; opkit raises it nowhere (it has no destroy
    handler), ops do: Theano's Gemm refuses an output buffer that aliases an input with it."""


def __getattr__(name):
    """Resolve the names other opkit modules own on first use: MissingInputError."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

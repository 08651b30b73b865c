"""theano.gof.fg: ``FunctionGraph`` (opkit's: a private copy of a graph), ``MissingInputError``,
``InconsistencyError``."""

from opkit.core.fgraph import FunctionGraph
from opkit.lazy import lazy_names as _lazy_names

# The names other opkit modules own, resolved on first use.
_LAZY = {"MissingInputError": "opkit.link.function"}
__all__ = ["FunctionGraph", "InconsistencyError", "MissingInputError"]


class InconsistencyError(Exception):
    """Theano's error for a graph that breaks a rule of its own; opkit raises it nowhere (it has no destroy
    handler), ops do: Theano's Gemm refuses an output buffer that aliases an input with it."""


__getattr__, __dir__ = _lazy_names(globals(), _LAZY)

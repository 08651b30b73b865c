"""theano.compile.io: ``In`` (opkit.compile.io: how a function takes one of its inputs)."""

from opkit.lazy import lazy_names as _lazy_names

_LAZY = {"In": "opkit.compile.io"}  # resolved on first use
__all__ = ["In"]
__getattr__, __dir__ = _lazy_names(globals(), _LAZY)

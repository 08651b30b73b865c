"""theano.compile.io: ``In`` (opkit.compile.io: how a function takes one of its inputs)."""

_LAZY = {"In": "opkit.compile.io"}
__all__ = ["In"]


def __getattr__(name):
    """Resolve the names other opkit modules own on first use: In."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

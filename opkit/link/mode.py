"""Compilation modes: which rewrites run and which linker executes the graph; `get_mode` makes one from its name.

The class is opkit.link.base_mode's Mode (DebugMode, named here, is built on it: a class of its own module).
"""

from __future__ import annotations

from opkit.config import config
from opkit.lazy import load
from opkit.link.base_mode import Mode, get_linker  # noqa: F401  (their home was this module)

MODE_NAMES = ("FAST_RUN", "FAST_COMPILE", "DebugMode")

# Modes made by a class of their own, named like the linkers: DebugMode (a Mode).
_MODE_CLASSES = {"DebugMode": ("opkit.link.debugmode", "DebugMode"),
                 "DEBUG_MODE": ("opkit.link.debugmode", "DebugMode")}  # Theano's and PyTensor's other name of it


def get_mode(mode):
    """Return a Mode for None (config.mode), a mode name, or a Mode instance."""
    if mode is None:
        mode = config.mode
    if isinstance(mode, Mode):
        return mode
    if mode == "FAST_RUN":
        return Mode(linker="c", optimizer="fast_run")
    if mode == "FAST_COMPILE":
        return Mode(linker="py", optimizer="fast_compile")
    if mode in _MODE_CLASSES:
        return load(*_MODE_CLASSES[mode])()  # lazy: DebugMode and the profiling modes import this module
    raise ValueError(f"unknown mode {mode!r}; valid modes: {', '.join(MODE_NAMES)} or an opkit.Mode")

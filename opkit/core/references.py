"""What a name written as text refers to: a pickle's reference to an op, a numpy or scipy function's path.

The one place opkit imports a module whose name is data, not code (as pickle itself does).
"""

from __future__ import annotations

import importlib


def attribute_path(target, qualname):
    """Return `target`'s attribute at the dotted `qualname` (``"A.b"``), or None where a step is missing."""
    for part in qualname.split(".") if qualname else ():
        target = getattr(target, part, None)
    return target


def load_reference(module, qualname):
    """Import `module` and return its attribute at the dotted `qualname` (None where a step is missing)."""
    return attribute_path(importlib.import_module(module), qualname)  # lazy: the module's name is data (a pickle's)


def find_path(path):
    """Return what the dotted `path` names, read as the longest importable module prefix and then attributes
    (``"scipy.stats.chi2.sf"``: the module scipy.stats, then chi2, then sf); None when it names nothing."""
    items = path.split(".")
    for cut in range(len(items), 0, -1):
        try:
            return load_reference(".".join(items[:cut]), ".".join(items[cut:]))
        except ImportError:
            continue
    return None

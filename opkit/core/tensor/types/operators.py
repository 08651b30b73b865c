"""The late-bound names of opkit.core.tensor: what a tensor's operators and methods build.

``x + y``, ``x.sum()``, ``x[0]``, ``x.reshape(...)`` build ops of later layers (elementwise, shapes,
reductions), and the gradient registry needs the last layer (gradients). The first layer imports no later
layer; it asks here: ``find(name)`` returns the name from the module of a later layer that defines it,
loaded on first use and then served from a dict.

Which module defines which name (``LATE``) and how a module is loaded are the package's: its
``__init__`` (opkit/core/tensor/__init__.py), which Python runs before any module of the package, calls
``install`` before it imports anything else. So this module imports nothing of opkit and the import graph
holds the edges where they are made (the package to its layers).

core's own modules below the tensor layers reach them here too: ScalarType's operators and conversions
(opkit.core.tensor.shapes.scalar_tensor builds the 0-d tensor ops).
"""

from __future__ import annotations

_HOME_OF: dict = {}  # name -> the module of a later layer that defines it
_FOUND: dict = {}  # name -> the value, once found
_load = None  # module name -> module (the package's loader)


def install(late, load):
    """Take `late` ({module name: names it defines}) and `load` (a module name -> the module)."""
    global _load
    _HOME_OF.update({name: module for module, names in late.items() for name in names})
    _load = load


def find(name):
    """Return the function or class `name` of the later layer that defines it (LATE in the package's __init__)."""
    try:
        return _FOUND[name]
    except KeyError:
        pass
    try:
        home = _HOME_OF[name]
    except KeyError:
        raise AttributeError(f"opkit.core.tensor.types.operators has no later-layer name {name!r}") from None
    value = _FOUND[name] = getattr(_load(home), name)
    return value

"""theano.compile.mode: ``Mode``, ``get_mode``, ``get_default_mode``, ``predefined_modes``; ``optdb`` is a no-op.

opkit's modes are opkit's (``Mode(linker=..., optimizer=...)``; FAST_RUN, FAST_COMPILE,
DebugMode); rewrite registration (``optdb.register``) keeps nothing and runs nothing.
"""

from opkit.compat.theano.gof.opt import NoOpDB
from opkit.link.mode import MODE_NAMES, Mode, get_mode

optdb = NoOpDB("optdb")


def get_default_mode():
    """Return the mode of ``config.mode`` (FAST_RUN unless set)."""
    return get_mode(None)


predefined_modes = {name: get_mode(name) for name in MODE_NAMES}

__all__ = ["Mode", "get_default_mode", "get_mode", "optdb", "predefined_modes"]

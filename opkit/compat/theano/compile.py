"""theano.compile: function, modes and DebugMode; ``optdb`` is a no-op rewrite database.

opkit's rewrites are its own; a ported module that registers rewrites into ``optdb`` gets an
object whose ``register`` does nothing (the rewrite is not run).
"""

from opkit import DebugMode, function, shared
from opkit.compat.theano.gof.opt import NoOpDB
from opkit.link.mode import Mode

optdb = NoOpDB("optdb")

__all__ = ["DebugMode", "Mode", "function", "optdb", "shared"]

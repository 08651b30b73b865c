"""theano.compile.sharedvalue: ``shared``, ``SharedVariable`` and ``generic`` (opkit's)."""

from opkit.core.shared import SharedVariable, shared
from opkit.compat.theano.gof.type import generic

__all__ = ["SharedVariable", "generic", "shared"]

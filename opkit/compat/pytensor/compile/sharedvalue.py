"""pytensor.compile.sharedvalue: ``shared`` and ``SharedVariable`` (opkit's)."""

from opkit.core.shared import SharedVariable, shared

__all__ = ["SharedVariable", "shared"]

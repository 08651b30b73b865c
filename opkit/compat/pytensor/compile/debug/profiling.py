"""pytensor.compile.debug.profiling: ``ProfileStats`` (opkit's: ``function(..., profile=True).profile``)."""

from opkit.link.profiling import ProfileStats

__all__ = ["ProfileStats"]

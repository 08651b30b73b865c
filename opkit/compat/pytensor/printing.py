"""pytensor.printing: ``debugprint`` (``dprint``), ``pydotprint``, opkit's."""

from opkit.printing import debugprint, pydotprint

dprint = debugprint

__all__ = ["debugprint", "dprint", "pydotprint"]

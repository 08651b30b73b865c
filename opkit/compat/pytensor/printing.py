"""pytensor.printing: ``debugprint`` (``dprint``), ``pydotprint``, opkit's."""

from opkit.printing import debugprint, pydotprint

dprint = debugprint

__all__ = ["debugprint", "dprint", "pydotprint"]

# Theano's pretty printer, which PyTensor kept: pprint.assign(op, FunctionPrinter("name")), pprint(variable).
from opkit.compat.theano.printing import (FunctionPrinter, IgnorePrinter, OperatorPrinter, PatternPrinter,  # noqa: E402
                                          PPrinter, pprint, special)

__all__ += ["FunctionPrinter", "IgnorePrinter", "OperatorPrinter", "PPrinter", "PatternPrinter", "pprint", "special"]

"""pytensor.tensor.sort: ``sort``, ``argsort`` and their ops, opkit.tensor's; ``KIND``, the Literal of the
sort kinds, and ``KIND_VALUES``, its values (opkit's sort takes the same kinds)."""

import typing

from opkit.lazy import lazy_names as _lazy_names

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["argsort", "sort"]
__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",), wanted=[*_NAMES, "ArgSortOp", "SortOp"])

KIND = typing.Literal["quicksort", "mergesort", "heapsort", "stable"]
KIND_VALUES = typing.get_args(KIND)

"""pytensor.tensor.sort: ``sort``, ``argsort`` and their ops, opkit.tensor's; ``KIND``, the Literal of the
sort kinds, and ``KIND_VALUES``, its values (opkit's sort takes the same kinds)."""

import typing

from opkit.compat.pytensor.tensor._from_opkit_tensor import dir_with, getattr_from_opkit_tensor

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["argsort", "sort"]
__getattr__ = getattr_from_opkit_tensor(__name__, [*_NAMES, "ArgSortOp", "SortOp"])
__dir__ = dir_with(globals(), __getattr__.names)

KIND = typing.Literal["quicksort", "mergesort", "heapsort", "stable"]
KIND_VALUES = typing.get_args(KIND)

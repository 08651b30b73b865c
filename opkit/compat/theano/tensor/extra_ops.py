"""theano.tensor.extra_ops: its functions (``cumsum``, ``repeat``, ``squeeze``, ``bincount``...), opkit.tensor's."""

from opkit.compat.pytensor.tensor._from_opkit_tensor import dir_with, getattr_from_opkit_tensor
from opkit.compat.theano.tensor.op_classes import DiffOp  # noqa: F401  (Theano's op class: opkit's diff)

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["bartlett", "bincount", "compress", "cpu_contiguous", "cumprod", "cumsum", "diff", "fill_diagonal",
           "fill_diagonal_offset", "ravel_multi_index", "repeat", "searchsorted", "squeeze", "to_one_hot",
           "unravel_index"]
__getattr__ = getattr_from_opkit_tensor(__name__, [*_NAMES, "DiffOp", "SearchsortedOp", "Unique"], homes={
    "CumOp": "opkit.core.tensor.sorting.cumulative"})
__dir__ = dir_with(globals(), __getattr__.names)

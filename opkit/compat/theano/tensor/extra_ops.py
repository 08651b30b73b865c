"""theano.tensor.extra_ops: its functions (``cumsum``, ``repeat``, ``squeeze``, ``bincount``...), opkit.tensor's."""

from opkit.lazy import lazy_names as _lazy_names
from opkit.compat.theano.tensor.op_classes import DiffOp  # noqa: F401  (Theano's op class: opkit's diff)

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["bartlett", "bincount", "compress", "cpu_contiguous", "cumprod", "cumsum", "diff", "fill_diagonal",
           "fill_diagonal_offset", "ravel_multi_index", "repeat", "searchsorted", "squeeze", "to_one_hot",
           "unravel_index"]
__getattr__, __dir__ = _lazy_names(globals(), {"CumOp": "opkit.core.tensor.sorting.cumulative"},
                                   search=("opkit.tensor",), wanted=[*_NAMES, "DiffOp", "SearchsortedOp", "Unique"])

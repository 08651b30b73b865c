"""pytensor.tensor.extra_ops: its functions (``cumsum``, ``repeat``, ``squeeze``, ``unique``...), opkit.tensor's."""

from opkit.lazy import lazy_names as _lazy_names

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["bartlett", "bincount", "broadcast_arrays", "broadcast_shape", "broadcast_to", "compress",
           "concat_with_broadcast", "cumprod", "cumsum", "diff", "fill_diagonal", "fill_diagonal_offset", "geomspace",
           "linspace", "logspace", "ravel_multi_index", "repeat", "searchsorted", "squeeze", "unique",
           "unravel_index"]
__getattr__, __dir__ = _lazy_names(globals(), {"CumOp": "opkit.core.tensor.sorting.cumulative",
                                                "Repeat": "opkit.core.tensor.shapes.repeat_take"},
                                   search=("opkit.tensor",), wanted=[*_NAMES, "SearchsortedOp", "Unique"])

"""theano.tensor.sort: ``sort``, ``argsort`` (and ``topk`` where opkit.tensor has it), opkit.tensor's."""

from opkit.lazy import lazy_names as _lazy_names

# upstream's __all__ (no __all__ here: star-importing a name opkit.tensor lacks yet would fail)
_NAMES = ["argsort", "sort"]
__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",), wanted=[
    *_NAMES, "ArgSortOp", "SortOp", "argtopk", "topk", "topk_and_argtopk"])

"""pytensor.tensor.special: ``softmax`` and ``log_softmax`` along `axis` (None: over every element)."""

import opkit.tensor as _ot


def _shifted(c, axis):
    c = _ot.as_tensor_variable(c)
    return c - _ot.max(c, axis=axis, keepdims=True)


def softmax(c, axis=None):
    """Return exp(c) / sum(exp(c)) along `axis`, computed from c - max(c) (no overflow)."""
    e = _ot.exp(_shifted(c, axis))
    return e / _ot.sum(e, axis=axis, keepdims=True)


def log_softmax(c, axis=None):
    """Return log(softmax(c, axis)), computed as (c - max) - log(sum(exp(c - max)))."""
    shifted = _shifted(c, axis)
    return shifted - _ot.log(_ot.sum(_ot.exp(shifted), axis=axis, keepdims=True))


__all__ = ["log_softmax", "softmax"]


# PyTensor's other names here, from opkit.tensor on first use (issue 48's functions as they land).
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",), wanted=(
    "beta", "betaln", "factorial", "logaddexp", "logit", "logsumexp", "poch", "xlog1py", "xlogy"
))

"""pytensor.tensor.math: opkit.tensor's arithmetic and reductions, and ``max_and_argmax``."""

from opkit.compat.pytensor.tensor._namespace import *  # noqa: F403
from opkit.compat.pytensor.tensor._namespace import __all__ as _names
from opkit.tensor import argmax, max  # noqa: A004


def max_and_argmax(a, axis=None, keepdims=False):
    """PyTensor's ``[max(a, axis), argmax(a, axis)]`` (two nodes here: opkit has no fused MaxAndArgmax op)."""
    return [max(a, axis=axis, keepdims=keepdims), argmax(a, axis=axis, keepdims=keepdims)]


__all__ = [*_names, "max_and_argmax"]

# Spellings PyTensor's math module keeps: Theano's ceil_intdiv and sgn, and dense_dot (dot of dense tensors).
from opkit.compat.theano.tensor.basic import ceil_intdiv, sgn  # noqa: E402
from opkit.tensor import dot as dense_dot  # noqa: E402

__all__ += ["ceil_intdiv", "dense_dot", "sgn"]


# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",))

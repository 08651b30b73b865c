"""pytensor.tensor.math: opkit.tensor's arithmetic and reductions, and ``max_and_argmax``."""

from opkit.compat.pytensor.tensor import *  # noqa: F403
from opkit.compat.pytensor.tensor import __all__ as _names
from opkit.tensor import argmax, max  # noqa: A004


def max_and_argmax(a, axis=None, keepdims=False):
    """PyTensor's ``[max(a, axis), argmax(a, axis)]`` (two nodes here: opkit has no fused MaxAndArgmax op)."""
    return [max(a, axis=axis, keepdims=keepdims), argmax(a, axis=axis, keepdims=keepdims)]


__all__ = [*_names, "max_and_argmax"]

"""theano.misc.safe_asarray: ``_asarray(a, dtype)``, numpy's asarray of exactly that dtype."""

import numpy as np

from opkit.config import config


def _asarray(a, dtype, order=None):
    """Return `a` as an array of `dtype` ('floatX': config.floatX), converting only when needed."""
    if str(dtype) == "floatX":
        dtype = config.floatX
    dtype = np.dtype(dtype)
    result = np.asarray(a, dtype=dtype, order=order)
    if result.dtype != dtype:  # numpy may hand back an equivalent dtype of another name
        result = result.view(dtype)
    return result


__all__ = ["_asarray"]

"""Theano 1.0's ``tensor.constant``: small scalar constants are made once and kept in ``constant_cache``.

Theano cached every constant of size 1 between -10 and 10 (ints, and floats while the cache holds
under 10000), so ``constant(1.5) is constant(1.5)``; PyTensor and opkit make a new one per call. The
key is the constant's ``signature()`` (its type and bytes); a hit is used only if it came, as asked,
from a Python number or not (opkit adapts those to the other operand's dtype). A named constant is
not cached (Theano's cache would hand out the first name).
"""

from types import SimpleNamespace

import numpy as np

from opkit.core.graph import Constant
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import constant as _constant, is_weak_number

constant_cache = {}


def constant(x, name=None, ndim=None, dtype=None):
    """Return a tensor constant of `x` (Theano's: `ndim` pads with leading axes of length 1; cached as above)."""
    if name is not None or isinstance(x, Constant):
        return _constant(x, name=name, ndim=ndim, dtype=dtype)
    data = np.asarray(x, dtype=dtype)
    if data.size != 1 or data.dtype.kind not in "iuf" or not -10 <= data.item() <= 10 or \
            (data.dtype.kind == "f" and len(constant_cache) >= 10000):
        return _constant(x, ndim=ndim, dtype=dtype)
    if ndim is not None and data.ndim < ndim:
        data = data.reshape((1,) * (ndim - data.ndim) + data.shape)
    probe = SimpleNamespace(data=data, type=TensorType(data.dtype, tuple(1 for _ in data.shape)))
    key = Constant.signature(probe)
    weak = is_weak_number(x) and dtype is None
    made = constant_cache.get(key)
    if made is not None and ("weak_value" in made.tag) == weak:
        return made
    made = _constant(x, ndim=ndim, dtype=dtype)
    constant_cache.setdefault(key, made)  # a Python number and a numpy scalar of one value: the first is kept
    return made


__all__ = ["constant", "constant_cache"]

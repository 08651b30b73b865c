"""Variable constructors: scalar(), vector(), ..., tensor(), and the named types."""

from __future__ import annotations

from opkit.core.tensor.type import TensorType


def _floatx(dtype):
    if dtype is None:
        from opkit.config import config

        return config.floatX
    return dtype


def tensor(dtype, shape=None, name=None):
    """Return a new tensor Variable of `dtype` with static `shape` (None entries: unknown)."""
    if shape is None:
        raise TypeError("tensor(dtype, shape) needs a shape, e.g. (None, None) for a matrix")
    return TensorType(dtype, shape)(name)


def _maker(ndim, kind):
    def make(name=None, dtype=None):
        return TensorType(_floatx(dtype), (None,) * ndim)(name)

    make.__name__ = kind
    make.__doc__ = f"Return a new {ndim}-d tensor Variable (dtype defaults to config.floatX)."
    return make


scalar = _maker(0, "scalar")
vector = _maker(1, "vector")
matrix = _maker(2, "matrix")
tensor3 = _maker(3, "tensor3")
tensor4 = _maker(4, "tensor4")

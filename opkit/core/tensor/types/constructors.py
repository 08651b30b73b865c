"""Variable constructors: scalar(), vector(), ..., tensor(), their plural forms, and the named types."""

from __future__ import annotations

import numbers

from opkit.core.tensor.types.static_shape import shape_or_broadcastable, static_shape
from opkit.core.tensor.types.type import _NAMES, _SHORT, TensorType


def _floatx(dtype):
    if dtype is None:
        from opkit.config import config

        return config.floatX
    return dtype


def tensor(dtype=None, shape=None, name=None, broadcastable=None):
    """Return a new tensor Variable of `dtype` (default config.floatX) with static `shape` (None entries: unknown).

    As TensorType, Theano's forms are read too: bools only as `shape`, or `broadcastable=`.
    """
    if shape is None and broadcastable is None:
        raise TypeError("tensor(dtype, shape) needs a shape, e.g. (None, None) for a matrix")
    return TensorType(_floatx(dtype), shape_or_broadcastable(shape, broadcastable, "tensor"))(name)


def _maker(ndim, kind, type_class=TensorType, what="tensor"):
    """Return the constructor `kind` of `ndim`-d Variables of `type_class` (TensorType; opkit.gpu's GpuArrayType)."""
    def make(name=None, dtype=None, shape=None):
        shape = (None,) * ndim if shape is None else static_shape(shape, ndim, kind)
        return type_class(_floatx(dtype), shape)(name)

    make.__name__ = make.__qualname__ = kind
    make.__doc__ = (f"Return a new {ndim}-d {what} Variable (dtype defaults to config.floatX; `shape`: "
                    f"{ndim} static lengths, None where unknown).")
    return make


scalar = _maker(0, "scalar")
vector = _maker(1, "vector")
matrix = _maker(2, "matrix")
tensor3 = _maker(3, "tensor3")
tensor4 = _maker(4, "tensor4")


def _plural(make, plural_name):
    """Return the plural form of a constructor, as PyTensor's (and Theano's).

    ``dvectors("a", "b")`` and ``dvectors("ab")`` return two variables named a and b;
    ``dvectors(3)`` three unnamed ones; ``dvectors("a")`` (one name) the variable itself.
    """

    def make_several(*names, shape=None):
        if names and isinstance(names[0], numbers.Integral) and not isinstance(names[0], bool):
            if len(names) != 1:
                raise TypeError(f"{plural_name}(n) takes one count, got {names!r}")
            return [make(shape=shape) for _ in range(int(names[0]))]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return make(names if isinstance(names, str) else names[0], shape=shape)
        return [make(name, shape=shape) for name in names]

    make_several.__name__ = make_several.__qualname__ = plural_name
    make_several.__doc__ = (f"Return one {getattr(make, '__name__', make)} per name: {plural_name}('a', 'b') "
                            f"or {plural_name}('ab'); {plural_name}(n) makes n unnamed ones; shape= applies to each.")
    return make_several


def plural_constructors(named_types):
    """Return {"scalars": ..., "dvectors": ..., "fmatrices": ...}: the plural forms of the constructors."""
    generic = {"scalar": scalar, "vector": vector, "matrix": matrix, "tensor3": tensor3, "tensor4": tensor4}
    forms = {}
    for kind in _NAMES.values():
        plural = "matrices" if kind == "matrix" else kind + "s"
        forms[plural] = _plural(generic[kind], plural)
        for prefix in _SHORT.values():
            forms[prefix + plural] = _plural(named_types[prefix + kind], prefix + plural)
    return forms

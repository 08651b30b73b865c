"""Variable constructors: scalar(), vector(), ..., tensor7(), row(), col(), tensor(), their plural forms, and the
named types (PyTensor's: the d/f/i/l/b/w/c/z prefixes for float64/float32/int32/int64/int8/int16/complex64/
complex128; `drow` has static shape (1, None), `dcol` (None, 1))."""

from __future__ import annotations

import numbers

from opkit.core.tensor.types.static_shape import shape_or_broadcastable, static_shape
from opkit.core.tensor.types.type import TensorType
from opkit.config import config


def _floatx(dtype):
    if dtype is None:
        return config.floatX
    return dtype


def tensor(dtype=None, shape=None, name=None, broadcastable=None):
    """Return a new tensor Variable of `dtype` (default config.floatX) with static `shape` (None entries: unknown).

    As TensorType, Theano's forms are read too: bools only as `shape`, or `broadcastable=`.
    """
    if shape is None and broadcastable is None:
        raise TypeError("tensor(dtype, shape) needs a shape, e.g. (None, None) for a matrix")
    return TensorType(_floatx(dtype), shape_or_broadcastable(shape, broadcastable, "tensor"))(name)


def _maker(ndim, kind, type_class=TensorType, what="tensor", default=None, unit_axis=None):
    """Return the constructor `kind` of `ndim`-d Variables of `type_class` (TensorType; opkit.gpu's GpuArrayType).

    `default` is the static shape without `shape=` (all None when None); `unit_axis` the axis whose static
    length must be 1 (row: 0, col: 1), as PyTensor's row() and col() check.
    """
    default = (None,) * ndim if default is None else tuple(default)

    def make(name=None, dtype=None, shape=None):
        shape = default if shape is None else static_shape(shape, ndim, kind)
        if unit_axis is not None and shape[unit_axis] != 1:
            place = ("first", "second")[unit_axis]
            raise ValueError(f"{kind}: the {place} dimension of a {kind} must have static length 1, got "
                             f"{shape[unit_axis]!r} (shape={shape!r})")
        return type_class(_floatx(dtype), shape)(name)

    make.__name__ = make.__qualname__ = kind
    shape_text = f"static shape {default}" if unit_axis is not None else f"{ndim} static lengths, None where unknown"
    make.__doc__ = (f"Return a new {ndim}-d {what} Variable (dtype defaults to config.floatX; `shape`: "
                    f"{shape_text}).")
    return make


scalar = _maker(0, "scalar")
vector = _maker(1, "vector")
matrix = _maker(2, "matrix")
tensor3 = _maker(3, "tensor3")
tensor4 = _maker(4, "tensor4")
tensor5 = _maker(5, "tensor5")
tensor6 = _maker(6, "tensor6")
tensor7 = _maker(7, "tensor7")
row = _maker(2, "row", default=(1, None), unit_axis=0)
col = _maker(2, "col", default=(None, 1), unit_axis=1)

# PyTensor's named types beyond type.named_types()' (float64/32, int32/64 of ranks 0 to 4): opkit.tensor has the
# d/f/i/l rows, cols and ranks 5 to 7 too; the int8/int16/complex prefixes' types are at PyTensor's and Theano's
# paths (opkit.compat), where ports look for them.
PREFIXES = {"float64": "d", "float32": "f", "int32": "i", "int64": "l", "int8": "b", "int16": "w",
            "complex64": "c", "complex128": "z"}
KINDS = {"scalar": (), "vector": (None,), "matrix": (None, None), "tensor3": (None,) * 3, "tensor4": (None,) * 4,
         "row": (1, None), "col": (None, 1), "tensor5": (None,) * 5, "tensor6": (None,) * 6, "tensor7": (None,) * 7}
GENERIC = {"scalar": scalar, "vector": vector, "matrix": matrix, "tensor3": tensor3, "tensor4": tensor4, "row": row,
           "col": col, "tensor5": tensor5, "tensor6": tensor6, "tensor7": tensor7}
MORE_KINDS = ("row", "col", "tensor5", "tensor6", "tensor7")


def named_types_of(prefixes, kinds):
    """Return {prefix + kind: TensorType} (e.g. "drow": float64 of static shape (1, None)) for PREFIXES' letters."""
    return {prefix + kind: TensorType(dtype, KINDS[kind]) for dtype, prefix in PREFIXES.items() if prefix in prefixes
            for kind in kinds}


def more_named_types():
    """Return opkit.tensor's named types beyond type.named_types(): drow, fcol, itensor5, ltensor7..."""
    return named_types_of("dfil", MORE_KINDS)


def small_int_and_complex_types():
    """Return the int8 (b), int16 (w), complex64 (c) and complex128 (z) named types of every kind (bscalar, wrow,
    ccol, ztensor7...): PyTensor's and Theano's, which opkit.compat holds."""
    return named_types_of("bwcz", KINDS)


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


def plural_constructors(named_types, kinds=("scalar", "vector", "matrix", "tensor3", "tensor4")):
    """Return {"scalars": ..., "dvectors": ..., "fmatrices": ...}: the plural forms of the constructors of `kinds`
    (named_types: the d/f/i/l types of those kinds; kinds=MORE_KINDS gives "rows", "drows", "ltensor7s"...)."""
    forms = {}
    for kind in kinds:
        plural = "matrices" if kind == "matrix" else kind + "s"
        forms[plural] = _plural(GENERIC[kind], plural)
        for prefix in "dfil":
            forms[prefix + plural] = _plural(named_types[prefix + kind], prefix + plural)
    return forms

"""pytensor.tensor.shape: the shape ops and helpers, opkit's (``shape``, ``Shape``, ``Shape_i``, ``Reshape``,
``specify_shape``), with PyTensor's ``shape_padleft``/``shape_padright``/``shape_padaxis``, ``shape_tuple``
and ``specify_broadcastable`` (a length of 1, checked when run)."""

import opkit.tensor as _ot
from opkit.compat.theano.tensor.basic import shape_padleft, shape_padright
from opkit.compat.theano.tensor.broadcasting import addbroadcast
from opkit.core.builtin_ops import Shape, Shape_i
from opkit.tensor import Reshape, shape, specify_shape
from opkit import register_shape_c_code, register_shape_i_c_code
from opkit.compat.theano.compile.ops import shape_i
from opkit.core.graph import Variable as _Variable

import types as _types

import numpy as _np

# PyTensor's annotation of one length a shape argument takes (specify_shape's: None for unknown, ... for the rest).
ShapeValueType = None | _types.EllipsisType | _np.integer | int | _Variable


def shape_padaxis(t, axis):
    """Return `t` with a broadcastable axis inserted at `axis` (negative counts from the end, numpy's rule)."""
    t = _ot.as_tensor_variable(t)
    if not -t.ndim - 1 <= axis <= t.ndim:
        raise IndexError(f"axis {axis} is out of bounds [-{t.ndim + 1}, {t.ndim + 1})")
    axis = axis % (t.ndim + 1)
    order = list(range(t.ndim))
    order.insert(axis, "x")
    return t.dimshuffle(order)


def shape_tuple(x):
    """Return x's shape as a tuple: the static length where the type knows it, else the symbolic x.shape[i]."""
    x = _ot.as_tensor_variable(x)
    return tuple(_ot.constant(length, dtype="int64") if length is not None else _ot.shape(x)[i]
                 for i, length in enumerate(x.type.shape))


def specify_broadcastable(x, *axes):
    """Return `x` with the given axes of static length 1 (checked when run)."""
    return addbroadcast(x, *axes) if axes else _ot.as_tensor_variable(x)


__all__ = ["Reshape", "Shape", "Shape_i", "shape", "shape_padaxis", "shape_padleft", "shape_padright",
           "shape_tuple", "specify_broadcastable", "specify_shape", "register_shape_c_code", "register_shape_i_c_code",
           "shape_i", "ShapeValueType"]


# PyTensor's other names here, from opkit.tensor on first use (issue 48's functions as they land).
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",), wanted=(
    "ShapeValueType", "SpecifyShape", "register_shape_c_code", "register_shape_i_c_code", "reshape",
    "shape_i", "vectorize_shape"
))

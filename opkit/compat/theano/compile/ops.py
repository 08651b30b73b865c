"""theano.compile.ops: the built-in ops (DeepCopyOp, ViewOp, Shape, Shape_i) and their C registration per Type."""

from opkit.compile.ops import *  # noqa: F403
from opkit.compile.ops import __all__ as _names
from opkit.compile.ops import Shape_i
from opkit.tensor import constant


def shape_i(var, i, fgraph=None):
    """Return the length of `var` along axis `i`: a constant when its type knows it, else a Shape_i node."""
    length = getattr(var.type, "shape", (None,) * (i + 1))[i]
    if length is not None:
        return constant(length, dtype="int64")
    return Shape_i(i)(var)


shape_i_op = Shape_i  # Theano caches one Shape_i per axis; opkit's ops are compared by value

__all__ = [*_names, "shape_i", "shape_i_op"]

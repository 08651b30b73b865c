"""Theano's ``get_scalar_constant_value`` and its errors: the value of a variable that is a constant scalar.

Follows Theano 1.0's (BSD-3) on opkit's graph: a Constant of size 1; a numpy or Python number; and
through the ops that keep a constant's value (views, copies, casts, DimShuffle, SpecifyShape, Alloc
of a constant, and with `elemwise` any elementwise op of constants, evaluated by its perform); a
``Shape_i`` whose length the type knows. Anything else raises NotScalarConstantError.
"""

import numpy as np

from opkit.core.graph import Constant, Variable


class NotScalarConstantError(Exception):
    """The variable is not a constant scalar (Theano's name)."""


class EmptyConstantError(NotScalarConstantError):
    """The variable is a constant of size 0."""


_PASS_THROUGH = ("ViewOp", "DeepCopyOp", "OutputGuard", "SpecifyShape", "Rebroadcast", "DimShuffle", "Alloc",
                 "Cast", "TensorFromScalar", "ScalarFromTensor", "Reshape")


def _scalar(data):
    data = np.asarray(data)
    if data.size == 0:
        raise EmptyConstantError()
    if data.size != 1:
        raise NotScalarConstantError()
    return data.reshape(())


def get_scalar_constant_value(orig_v, elemwise=True, only_process_constants=False, max_recur=10):
    """Return the 0-d numpy array `orig_v` always equals, or raise NotScalarConstantError."""
    v = orig_v
    for _ in range(max_recur + 1):
        if not isinstance(v, Variable):
            return _scalar(v)
        if isinstance(v, Constant):
            return _scalar(v.data)
        if only_process_constants or v.owner is None:
            break
        node, name = v.owner, type(v.owner.op).__name__
        if name == "Shape_i":
            length = getattr(node.inputs[0].type, "shape", ())[node.op.i]
            if length is not None:
                return np.asarray(length, dtype="int64")
            break
        if name in _PASS_THROUGH and name != "Cast":
            v = node.inputs[0]
            continue
        if name in ("Elemwise", "Cast") and (elemwise or name == "Cast"):
            values = [get_scalar_constant_value(i, elemwise, only_process_constants, max_recur - 1)
                      for i in node.inputs]
            storage = [[None] for _ in node.outputs]
            node.op.perform(node, values, storage)
            return _scalar(storage[node.outputs.index(v)][0]).astype(v.dtype)
        break
    raise NotScalarConstantError(f"{orig_v} is not a constant scalar")


__all__ = ["EmptyConstantError", "NotScalarConstantError", "get_scalar_constant_value"]

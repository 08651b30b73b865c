"""Tensor variables from values: constant and as_tensor_variable (the classes live in types/symbolic.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from opkit.core.graph import Variable
from opkit.core.scalar_type import ScalarType
from opkit.core.tensor.types.operators import find  # a scalar variable becomes a 0-d tensor (TensorFromScalar)
# their home was this module: `from opkit.core.tensor.types.variable import TensorVariable` keeps working
from opkit.core.tensor.types.symbolic import TensorConstant, TensorVariable, _TensorOperators  # noqa: F401
from opkit.core.tensor.types.type import TensorType, dtype_name
from opkit.core.tensor.types.weak import fits_64_bits, is_weak_number


def constant(value, name=None, ndim=None, dtype=None):
    """Return a TensorConstant holding `value` (a number, list or array)."""
    if dtype is None and isinstance(value, int) and not fits_64_bits(value):
        raise OverflowError(f"cannot make a tensor constant from the Python int {value}: it does not fit "
                            f"int64 or uint64 (combine it with an array, e.g. x < {value}, or pass a float)")
    data = np.asarray(value, dtype=None if dtype is None else dtype_name(dtype))
    if data.dtype.kind not in "biufc":
        raise TypeError(f"cannot make a tensor constant from {type(value).__name__} {value!r:.40} (not numeric)")
    if ndim is not None:
        if data.ndim > ndim:
            raise ValueError(f"constant has {data.ndim} dimensions, more than ndim={ndim}")
        data = data.reshape((1,) * (ndim - data.ndim) + data.shape)
    ttype = TensorType(data.dtype, tuple(1 if s == 1 else None for s in data.shape))
    result = TensorConstant(ttype, data, name=name)
    if is_weak_number(value) and dtype is None:
        result.tag["weak_value"] = value  # a Python scalar: it adapts to the other operand's dtype
    return result


def as_tensor_variable(value: Any, name: str | None = None, ndim: int | None = None) -> TensorVariable:
    """Return `value` as a tensor Variable: variables pass through, data becomes a constant."""
    if isinstance(value, Variable):
        if isinstance(value.type, ScalarType):
            value = find("tensor_from_scalar")(value)  # PyTensor's TensorFromScalar (a 0-d tensor)
        if not isinstance(value.type, TensorType):
            raise TypeError(f"expected a tensor variable, got {value} of type {value.type}")
        if ndim is not None and value.ndim != ndim:
            raise ValueError(f"expected {ndim} dimensions, got {value} with {value.ndim}")
        return value
    if hasattr(value, "owner") and hasattr(value, "type"):
        raise TypeError(f"cannot convert {value!r} to a tensor variable")
    return constant(value, name=name, ndim=ndim)

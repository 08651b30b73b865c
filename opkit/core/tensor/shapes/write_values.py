"""The value that goes into x[index] for a write (set_subtensor, inc_subtensor, basic or advanced).

numpy's ``r[index] = y`` casts any dtype (complex into real warns and drops the imaginary part); its
``r[index] += y`` refuses, when the graph is built, a y whose sum with x numpy would not cast back to x's
dtype ('same_kind'). A Python number is converted as numpy converts it (an int that does not fit raises
OverflowError).
"""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Constant
from opkit.core.tensor.types.variable import as_tensor_variable, constant
from opkit.core.tensor.types.weak import is_weak_number, weak_constant_data


def _weak_value(y):
    """Return the Python number `y` stands for (a number, or a constant made from one), else None."""
    if is_weak_number(y):
        return y
    if isinstance(y, Constant) and "weak_value" in y.tag:
        return y.tag["weak_value"]
    return None


def _added_dtype(x_dtype, y_operand, what):
    """Return the dtype of x + y for ``x[index] += y``, or raise numpy's refusal to cast it back to x's dtype."""
    dtype = np.result_type(np.dtype(x_dtype), y_operand)
    if not np.can_cast(dtype, x_dtype, "same_kind"):
        shown = f"the Python {type(y_operand).__name__} {y_operand!r}" if is_weak_number(y_operand) else \
            f"a {np.dtype(y_operand)} y"
        raise TypeError(f"{what}: cannot add {shown} to a {x_dtype} x: as numpy's x[index] += y, the sum is "
                        f"{dtype}, which casting rule 'same_kind' does not cast back to {x_dtype}; cast y to "
                        f"{x_dtype} first (y.astype('{x_dtype}')) if that is what you mean")
    return dtype


def value_of(x_dtype, y, set_instead_of_inc):
    """Return `y` as the tensor that goes into x[index], with numpy's dtype rules for a set or an add."""
    what = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    number = _weak_value(y)
    if number is None:
        y = as_tensor_variable(y)
        if not set_instead_of_inc:
            _added_dtype(x_dtype, y.dtype, what)
        return y
    dtype = x_dtype if set_instead_of_inc else _added_dtype(x_dtype, number, what)
    try:
        return constant(weak_constant_data(number, dtype, what))
    except TypeError as exc:  # complex into a real dtype: numpy's x[index] = 1j raises it too
        raise TypeError(f"{what}: cannot convert the Python {type(number).__name__} {number!r} to x's "
                        f"dtype {x_dtype}: {exc}") from None

"""isclose and allclose: numpy's tolerance test, elementwise (a graph of comparisons, fused into one loop).

numpy's rule: |a - b| <= atol + rtol * |b| where b is finite, or a == b (equal infinities); with
equal_nan, NaN is close to NaN. b is first converted to numpy's float dtype of b and 1.0.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise.elemwise_math import abs as abs_
from opkit.core.tensor.elementwise.logic import and_, eq, le, neq, or_
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.types.variable import as_tensor_variable


def _tolerance(value, name, what):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: {name} must be a real number, got {value!r}")
    return float(value)


def isclose(a, b, rtol=1.0e-5, atol=1.0e-8, equal_nan=False):
    """Return where `a` and `b` are equal within the tolerances, as a bool tensor (numpy.isclose)."""
    rtol, atol = _tolerance(rtol, "rtol", "isclose"), _tolerance(atol, "atol", "isclose")
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    for name, v in (("a", a), ("b", b)):
        if np.dtype(v.dtype).kind not in "biufc":
            raise TypeError(f"isclose: {name} must be numeric, got {v} of type {v.type}")
    float_dtype = np.result_type(np.zeros((), b.dtype), 1.0)
    b = cast(b, float_dtype)
    if a.dtype == "bool":
        a = cast(a, float_dtype)
    b_finite = eq(b - b, 0)  # inf - inf and NaN - NaN are NaN
    result = or_(and_(le(abs_(a - b), atol + rtol * abs_(b)), b_finite), eq(a, b))
    if equal_nan:
        result = or_(result, and_(neq(a, a), neq(b, b)))
    return result


def allclose(a, b, rtol=1.0e-5, atol=1.0e-8, equal_nan=False):
    """Return whether every element of `a` and `b` is close (numpy.allclose): a 0-d bool tensor."""
    return isclose(a, b, rtol, atol, equal_nan).all()


__all__ = ["allclose", "isclose"]

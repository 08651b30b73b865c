"""theano.tensor.type: TensorType, and Theano's comparisons that ignore infinities or NaNs.

An op sets ``out.tag.values_eq_approx = values_eq_approx_remove_inf`` for DebugMode's comparison;
the functions compare as TensorType.values_eq_approx does after masking the ignored values.
"""

import numpy as np

from opkit.tensor import TensorType


def _approx(a, b, ignore):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    keep = ~(ignore(a) | ignore(b))
    return bool(np.allclose(a[keep], b[keep], equal_nan=True))


def values_eq_approx(a, b, allow_remove_inf=False, allow_remove_nan=False, rtol=None, atol=None):
    """Theano's TensorType.values_eq_approx: equal shapes and values up to rounding (the dtype's tolerance,
    or `rtol`/`atol`); infinities and NaNs where either side has them are ignored when allowed."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    keep = np.ones(a.shape, dtype=bool)
    if allow_remove_inf:
        keep &= ~(np.isinf(a) | np.isinf(b))
    if allow_remove_nan:
        keep &= ~(np.isnan(a) | np.isnan(b))
    return TensorType(str(np.result_type(a, b)), ()).values_eq_approx(a[keep], b[keep], rtol=rtol, atol=atol)


def values_eq_approx_always_true(a, b):
    """Theano's comparison for outputs DebugMode must not compare: always True."""
    return True


def values_eq_approx_remove_inf(a, b):
    return _approx(a, b, np.isinf)


def values_eq_approx_remove_nan(a, b):
    return _approx(a, b, np.isnan)


def values_eq_approx_remove_inf_nan(a, b):
    return _approx(a, b, lambda v: ~np.isfinite(v))


__all__ = ["TensorType", "values_eq_approx", "values_eq_approx_always_true", "values_eq_approx_remove_inf", "values_eq_approx_remove_nan",
           "values_eq_approx_remove_inf_nan"]

"""PyTensor's one-dimensional interpolation: interp (numpy.interp's signature) and interpolate1d, built from argsort,
searchsorted, clip, integer indexing and switch (their C and gradients; the gradient flows to the query points,
to fp and through the slopes to xp, as PyTensor's graph gives).

``interpolate1d(x, y, method="linear", left_pad=None, right_pad=None, extrapolate=True)`` returns a function of
the query points x_hat (any shape): `x` is sorted (with `y`), and the methods are PyTensor's: "linear",
"nearest", "first" (the value to the left), "last" (to the right), "mean" (of the two). Without
`extrapolate`, points below x[0] give `left_pad` (default y[0]) and above x[-1] `right_pad` (default y[-1]);
x[0] itself is inside, as numpy.interp has it (PyTensor gives left_pad there).
``interp(x, xp, fp, left=None, right=None, period=None)`` is numpy.interp: linear, not extrapolated; `xp` must be
increasing; `period` is not supported (numpy's periodic form: NotImplementedError, as PyTensor's ignores it).
"""

from __future__ import annotations

from opkit.core.tensor.elementwise.elemwise_math import clip
from opkit.core.tensor.elementwise.logic import gt, le, lt, switch
from opkit.core.tensor.sorting.searching import searchsorted
from opkit.core.tensor.sorting.sort import argsort
from opkit.core.tensor.types.variable import as_tensor_variable

METHODS = ("linear", "nearest", "first", "last", "mean")


def interpolate1d(x, y, method="linear", left_pad=None, right_pad=None, extrapolate=True):
    """Return a function of query points x_hat interpolating the points (x, y) by `method` (PyTensor's)."""
    if method not in METHODS:
        import difflib

        close = difflib.get_close_matches(str(method), METHODS)
        raise ValueError(f"interpolate1d: unknown method {method!r}; methods: {', '.join(METHODS)}"
                         + (f" (did you mean {close[0]!r}?)" if close else ""))
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"interpolate1d: x and y must be 1-d, got {x.ndim} and {y.ndim} dimensions")
    order = argsort(x)
    x, y = x[order], y[order]
    left_pad = y[0] if left_pad is None else as_tensor_variable(left_pad)
    right_pad = y[-1] if right_pad is None else as_tensor_variable(right_pad)
    n = x.shape[0]

    def interpolate(x_hat):
        x_hat = as_tensor_variable(x_hat)
        idx = searchsorted(x, x_hat)
        if method == "linear":
            at = clip(idx, 1, n - 1)
            slope = (x_hat - x[at - 1]) / (x[at] - x[at - 1])
            y_hat = y[at - 1] + slope * (y[at] - y[at - 1])
        elif method == "nearest":
            at = clip(idx, 1, n - 1)
            y_hat = switch(le(x_hat - x[at - 1], x[at] - x_hat), y[at - 1], y[at])
        elif method == "first":
            y_hat = y[clip(idx - 1, 0, n - 1)]
        elif method == "last":
            y_hat = y[clip(idx, 0, n - 1)]
        else:
            at = clip(idx, 1, n - 1)
            y_hat = (y[at - 1] + y[at]) / 2
        if extrapolate:
            return y_hat
        # numpy.interp's ends: x_hat equal to x[0] is inside (y[0]; PyTensor's gives left_pad there)
        return switch(lt(x_hat, x[0]), left_pad, switch(gt(x_hat, x[n - 1]), right_pad, y_hat))

    interpolate.__name__ = f"interpolate1d_{method}"
    return interpolate


def interp(x, xp, fp, left=None, right=None, period=None):
    """Return numpy.interp(x, xp, fp, left, right): linear interpolation of (xp, fp) at `x`, xp increasing."""
    if period is not None:
        raise NotImplementedError("interp: period= (numpy's periodic interpolation) is not supported")
    return interpolate1d(xp, fp, method="linear", left_pad=left, right_pad=right, extrapolate=False)(x)

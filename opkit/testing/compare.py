"""Compare arrays with dtype-aware tolerances and say which element differs most."""

from __future__ import annotations

import numpy as np

# cmp_sloppy -> dtype -> (atol, rtol); the narrowest float dtype of the two arrays decides.
TOLERANCES = {
    0: {"float16": (5e-4, 5e-4), "float32": (1e-5, 1e-5), "float64": (1e-8, 1e-5)},
    1: {"float16": (1e-3, 5e-3), "float32": (1e-4, 1e-3), "float64": (1e-3, 1e-4)},
    2: {"float16": (5e-3, 1e-2), "float32": (5e-4, 1e-3), "float64": (1e-3, 1e-4)},
}


def tolerances(*dtypes, cmp_sloppy=0):
    """Return (atol, rtol) for comparing values of `dtypes` at sloppiness 0, 1 or 2."""
    if cmp_sloppy not in TOLERANCES:
        raise ValueError(f"cmp_sloppy must be 0, 1 or 2, not {cmp_sloppy!r}")
    table = TOLERANCES[cmp_sloppy]
    names = {str(np.dtype(d)).replace("complex64", "float32").replace("complex128", "float64") for d in dtypes}
    for narrow in ("float16", "float32"):
        if narrow in names:
            return table[narrow]
    return table["float64"]


class WrongValueError(AssertionError):
    """Two arrays differ by more than the tolerances; the worst element is named."""

    def __init__(self, expected, value, atol, rtol, index=None, reason=None):
        self.expected = expected
        self.value = value
        self.atol = atol
        self.rtol = rtol
        self.index = index
        lines = [reason or f"arrays are not close (atol={atol:g}, rtol={rtol:g})"]
        if reason is None:
            diff = np.abs(np.asarray(value, dtype="float64") - np.asarray(expected, dtype="float64"))
            self.abs_err = float(np.nanmax(diff)) if diff.size else 0.0
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = diff / np.abs(np.asarray(expected, dtype="float64"))
            self.rel_err = float(np.nanmax(rel)) if rel.size else 0.0
            bad = ~np.isclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)
            lines += [f"max absolute difference: {self.abs_err:.6g}",
                      f"max relative difference: {self.rel_err:.6g}",
                      f"mismatched elements: {int(bad.sum())} of {bad.size}",
                      f"worst element at {index}: expected {expected[index].item()!r}, got {value[index].item()!r}"]
        lines += [f"expected: {_brief(expected)}", f"value: {_brief(value)}"]
        super().__init__("\n".join(lines))


def _brief(array):
    return np.array2string(np.asarray(array), threshold=20, edgeitems=3, precision=6)


def worst_index(expected, value, atol, rtol):
    """Return the index where `value` most exceeds atol + rtol * |expected|, or None if all are close."""
    expected = np.asarray(expected, dtype="float64")
    value = np.asarray(value, dtype="float64")
    close = np.isclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    with np.errstate(invalid="ignore"):
        excess = np.abs(value - expected) - (atol + rtol * np.abs(expected))
    excess = np.where(close, -np.inf, np.nan_to_num(excess, nan=np.inf))
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), excess.shape))


def assert_allclose(expected, value, cmp_sloppy=0, rtol=None, atol=None):
    """Raise WrongValueError unless `value` equals `expected` within dtype-aware tolerances.

    Tolerances follow the dtypes (float32 is looser than float64) and are
    loosened by ``cmp_sloppy`` 1 and 2; `rtol`/`atol` override them.
    """
    expected_array, value_array = np.asarray(expected), np.asarray(value)
    default_atol, default_rtol = tolerances(expected_array.dtype, value_array.dtype, cmp_sloppy=cmp_sloppy)
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    try:
        expected_b, value_b = np.broadcast_arrays(expected_array, value_array)
    except ValueError:
        raise WrongValueError(expected_array, value_array, atol, rtol, reason=(
            f"shapes differ: expected {expected_array.shape}, got {value_array.shape}")) from None
    index = worst_index(expected_b, value_b, atol, rtol)
    if index is not None:
        raise WrongValueError(expected_b, value_b, atol, rtol, index=index)

"""Dtypes, values, memory layouts and a result checker shared by the tensor tests (tests/tensor)."""

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")


def _eps(dtype):
    dtype = np.dtype(dtype)
    return float(np.finfo(dtype).eps) if dtype.kind in "fc" else 0.0


def check_close(result, expected, exact, scale=None, what=""):
    """Dtype exact; values bit for bit if `exact` (or integral), else within 64 ulps of the terms' magnitude."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, f"{what}: dtype {result.dtype}, numpy gives {expected.dtype}"
    assert result.shape == expected.shape, f"{what}: shape {result.shape}, numpy gives {expected.shape}"
    if exact or expected.dtype.kind in "biu":
        if expected.dtype.kind == "b":  # the bytes: a bool holding 2 prints as True
            np.testing.assert_array_equal(result.view(np.uint8), expected.view(np.uint8), err_msg=what)
        np.testing.assert_array_equal(result, expected, err_msg=what, strict=True)
        return
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(result[~finite], expected[~finite], err_msg=what)
    if scale is None:
        magnitude = np.abs(expected)
    else:
        with np.errstate(all="ignore"):
            magnitude = np.broadcast_to(np.asarray(scale, dtype=np.float64), expected.shape)
    magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
    tolerance = 64 * _eps(expected.dtype) * (magnitude + np.finfo(np.float64).tiny)
    with np.errstate(all="ignore"):
        error = np.abs(result.astype(np.complex128) - expected.astype(np.complex128))
    bad = finite & ~(error <= tolerance)
    assert not bad.any(), f"{what}: {result[bad][:5]} vs numpy {expected[bad][:5]} (tolerance {tolerance[bad][:5]})"


def special_values(dtype):
    """Values that find the corner cases of `dtype`: extremes, halves, signed zeros, inf and nan."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False, True, True, False, False, True, False])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.min, info.min + 1,
                         max(info.min, -1), max(info.min, -100)], dtype=dt)
    reals = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 1e-6, -3.0, 3.0, 18.0, -20.0, 40.0, -40.0, 89.0, -104.0,
             700.0, -800.0, np.inf, -np.inf, np.nan, 0.1, -0.7, 1e4]
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.array(reals, dtype=np.float64)
        if dt.kind == "c":
            return (values + 1j * values[::-1]).astype(dt)
        return values.astype(dt)


def layouts(values):
    """The same values as 2-d arrays with various memory layouts (and a 0-size one)."""
    base = np.resize(values, (4, 6))
    big = np.zeros((9, 13), dtype=values.dtype)
    big[1::2, 1::2] = base
    return {
        "c": base.copy(), "fortran": np.asfortranarray(base), "strided": big[1::2, 1::2],
        "reversed": np.ascontiguousarray(base[::-1, ::-1])[::-1, ::-1], "empty": base[:0],
    }


def layout(base, kind):
    """Return an array equal to `base` with the memory layout `kind`."""
    if kind == "fortran":
        return np.asfortranarray(base)
    if kind == "strided":
        big = np.zeros(tuple(2 * d + 1 for d in base.shape), dtype=base.dtype)
        view = big[tuple(slice(1, None, 2) for _ in base.shape)]
        view[...] = base
        return view
    if kind == "reversed":
        flip = tuple(slice(None, None, -1) for _ in base.shape)
        return np.ascontiguousarray(base[flip])[flip]
    return np.ascontiguousarray(base)

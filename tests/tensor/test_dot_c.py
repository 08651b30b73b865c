"""Dot's C (dot.c): numpy's own dot, so every dtype, layout and length gives np.dot's numbers, dtype and errors,
and a compiled function never goes through perform's Python call."""

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.core.tensor.elementwise.basic import Dot

DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def _values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":  # large enough that int8 and uint16 products wrap, as numpy's do
        return rng.integers(0, 120, shape).astype(dtype)
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _layouts(a):
    """a in C order, Fortran order, every other row and column, reversed, and as a view of a bigger array."""
    big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
    big[tuple(slice(None, None, 2) for _ in a.shape)] = a
    return {"C": a, "F": np.asfortranarray(a), "strided": big[tuple(slice(None, None, 2) for _ in a.shape)],
            "reversed": a[tuple(slice(None, None, -1) for _ in a.shape)].copy()[tuple(slice(None, None, -1)
                                                                                     for _ in a.shape)]}


def _function(dtype, mode):
    return _function_of([dtype], mode)


def _function_of(dtypes, mode):
    """One function of the four products (m n, m v, v n, v w) of each dtype: inputs and outputs in that order."""
    inputs, outputs = [], []
    for dtype in dtypes:
        m, n = ot.matrix(f"m_{dtype}", dtype=dtype), ot.matrix(f"n_{dtype}", dtype=dtype)
        v, w = ot.vector(f"v_{dtype}", dtype=dtype), ot.vector(f"w_{dtype}", dtype=dtype)
        inputs += [m, n, v, w]
        outputs += [ot.dot(m, n), ot.dot(m, v), ot.dot(v, n), ot.dot(v, w)]
    return opkit.function(inputs, outputs, mode=mode)


def _check(got, want):
    for g, expected in zip(got, want):
        np.testing.assert_array_equal(g, expected, strict=True)  # dtype and 0-d shape too


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_every_product_of_vectors_and_matrices_is_numpys_in_every_layout(mode):
    """One function of every dtype's products, called on each layout of every dtype's values: its 36 nodes are
    above QUICK_RUN_ABOVE (a function per node), one module of 1.9 CPU-s of g++ against 0.55 s a dtype apart."""
    f = _function_of(DTYPES, mode)
    layouts = []  # per dtype: the layouts of m, n, v and w, each a list in _layouts' order
    for dtype in DTYPES:
        rng = np.random.default_rng(DTYPES.index(dtype))
        m, n, v, w = (_values(rng, dtype, s) for s in [(5, 7), (7, 3), (7,), (7,)])
        layouts.append([list(_layouts(a).values()) for a in (m, n, v, w)])
    for k in range(len(layouts[0][0])):
        args = [each[k] for of_dtype in layouts for each in of_dtype]
        want = []
        for lm, ln, lv, lw in zip(*[iter(args)] * 4):
            want += [np.dot(lm, ln), np.dot(lm, lv), np.dot(lv, ln), np.asarray(np.dot(lv, lw))]
        _check(f(*args), want)


@pytest.mark.parametrize("p, q, r", [(0, 7, 3), (5, 0, 3), (5, 7, 0)])
def test_zero_length_axes_give_numpys_zeros_and_empties(p, q, r):
    f = _function("float64", "FAST_RUN")
    m, n, v, w = np.ones((p, q)), np.ones((q, r)), np.ones(q), np.ones(q)
    _check(f(m, n, v, w), [np.dot(m, n), np.dot(m, v), np.dot(v, n), np.asarray(np.dot(v, w))])


def test_mixed_dtypes_follow_numpys_promotion():
    a, b = ot.matrix("a", dtype="int8"), ot.vector("b", dtype="float32")
    f = opkit.function([a, b], ot.dot(a, b))
    x, y = np.arange(6, dtype="int8").reshape(2, 3), np.array([0.5, -1.0, 2.0], dtype="float32")
    np.testing.assert_array_equal(f(x, y), np.dot(x, y), strict=True)


def test_a_compiled_function_never_calls_perform(monkeypatch):
    def perform(self, node, inputs, output_storage):
        raise AssertionError("Dot.perform ran: the compiled function went through Python")

    monkeypatch.setattr(Dot, "perform", perform)
    f = _function("float64", "FAST_RUN")
    x = np.arange(6.0).reshape(2, 3)
    got = f(x, x.T, np.ones(3), np.ones(3))
    _check(got, [x @ x.T, x @ np.ones(3), np.ones(3) @ x.T, np.asarray(3.0)])


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_unaligned_shapes_raise_numpys_valueerror(mode):
    f = _function("float64", mode)
    with pytest.raises(ValueError, match=r"not aligned"):
        f(np.ones((2, 3)), np.ones((4, 2)), np.ones(3), np.ones(3))


@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128"])
def test_debugmode_finds_c_and_perform_equal_in_every_layout(dtype):
    """DebugMode compiles each node on its own (a module per product); dot.c is one C for every dtype (numpy's
    PyArray_MatrixProduct2 does each dtype's work): float32's case stays, int8's and complex128's are soak."""
    rng = np.random.default_rng(7)
    f = _function(dtype, "DebugMode")
    m, n, v, w = (_values(rng, dtype, s) for s in [(3, 4), (4, 2), (4,), (4,)])
    for lm, ln, lv, lw in zip(*(_layouts(a).values() for a in (m, n, v, w))):
        got = f(lm, ln, lv, lw)  # DebugMode raises if C and perform disagree, or C mishandles an output cell
        # DebugMode runs perform on copies of the inputs: BLAS on another layout may round float32 differently
        for g, want in zip(got, [np.dot(lm, ln), np.dot(lm, lv), np.dot(lv, ln), np.dot(lv, lw)]):
            assert g.dtype == want.dtype and g.shape == np.shape(want)
            np.testing.assert_allclose(g, want, rtol=1e-6 if dtype == "float32" else 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_big_float_matrix_products_through_numpys_matmul_give_dots_bits(dtype):
    """A float product of 4096 outputs or more goes through numpy.matmul (no zero-fill): np.dot's bits still, for
    matrices in C and Fortran order, a product with its own transpose (BLAS's syrk), and a strided view (np.dot)."""
    rng = np.random.default_rng(11)
    a, b = ot.matrix("a", dtype=dtype), ot.matrix("b", dtype=dtype)
    f = opkit.function([a, b], ot.dot(a, b))
    x, y = rng.standard_normal((100, 80)).astype(dtype), rng.standard_normal((80, 70)).astype(dtype)
    for lx in (x, np.asfortranarray(x)):
        for ly in (y, np.asfortranarray(y), np.repeat(y, 2, axis=1)[:, ::2]):
            np.testing.assert_array_equal(f(lx, ly), np.dot(lx, ly), strict=True)
    z = rng.standard_normal((90, 70)).astype(dtype)
    for lz in (z, np.asfortranarray(z)):
        np.testing.assert_array_equal(f(lz, lz.T), np.dot(lz, lz.T), strict=True)
        np.testing.assert_array_equal(f(lz.T, lz), np.dot(lz.T, lz), strict=True)


def test_eight_threads_calling_one_function_get_their_own_products():
    from concurrent.futures import ThreadPoolExecutor

    f = _function("float64", "FAST_RUN")
    rng = np.random.default_rng(5)
    cases = [[rng.standard_normal(s) for s in [(70, 64), (64, 90), (64,), (64,)]] for _ in range(8)]

    def run(case):
        return [[np.array(r, copy=True) for r in f(*case)] for _ in range(20)]

    with ThreadPoolExecutor(8) as pool:
        for case, results in zip(cases, pool.map(run, cases)):
            m, n, v, w = case
            for got in results:
                _check(got, [np.dot(m, n), np.dot(m, v), np.dot(v, n), np.asarray(np.dot(v, w))])

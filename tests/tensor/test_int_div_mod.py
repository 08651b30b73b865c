"""int_div (floor_div, //) and mod (%) against numpy's floor_divide and remainder, bit for bit.

Every real dtype and mixed pairs (numpy's promotion; the soak run compiles the pairs DEFAULT_PAIRS leaves),
C (FAST_RUN) and numpy (FAST_COMPILE), with
hypothesis values that include the corners: MIN // -1 (wraps in numpy; C's `/` traps with SIGFPE),
division by zero (0 for integers; inf/nan for floats), signed zeros, infinities and NaN.
"""

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.testing import InferShapeTester, verify_grad
from helpers.modes import FAST_RUN_GRAPH

REAL = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64")
MIXED = (("int8", "uint8"), ("int64", "uint64"), ("uint64", "int8"), ("int32", "float32"), ("bool", "int8"),
         ("uint8", "float16"), ("int64", "float64"), ("uint32", "int32"), ("float32", "float64"),
         ("int16", "uint16"), ("uint16", "float32"), ("bool", "float64"))
PAIRS = tuple((d, d) for d in REAL) + MIXED
# The default run's pairs: bool, a signed and an unsigned integer of each end of the widths, every float (float32
# has C of its own: floorf, fmodf), and mixed pairs that promote to a wider integer and to float64; the soak run
# compiles the others (int16, int32, uint16, uint32 run the same C templates) in a module of their own.
DEFAULT_PAIRS = tuple((d, d) for d in ("bool", "int8", "int64", "uint8", "uint64", "float16", "float32", "float64"))
DEFAULT_PAIRS += (("int8", "uint8"), ("int64", "uint64"), ("uint64", "int8"), ("bool", "float64"))
SOAK_PAIRS = tuple(pair for pair in PAIRS if pair not in DEFAULT_PAIRS)
OPS = (("int_div", np.floor_divide), ("mod", np.remainder))


def same_bits(result, expected, what):
    """Dtype, shape and values exactly: signed zeros apart, NaN equal to NaN (its payload aside)."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, f"{what}: dtype {result.dtype}, numpy gives {expected.dtype}"
    assert result.shape == expected.shape, f"{what}: shape {result.shape}, numpy gives {expected.shape}"
    if expected.dtype.kind == "f":
        both_nan = np.isnan(result) & np.isnan(expected)
        same = (result.view(f"u{result.itemsize}") == expected.view(f"u{expected.itemsize}")) | both_nan
        assert same.all(), f"{what}: {result[~same][:6]} vs numpy {expected[~same][:6]}"
    else:
        np.testing.assert_array_equal(result, expected, err_msg=what, strict=True)


@pytest.fixture(scope="module", params=[DEFAULT_PAIRS, pytest.param(SOAK_PAIRS, marks=pytest.mark.soak)],
                ids=["default", "soak"])
def functions(request):
    """(pairs, {mode: function}): one function per mode holding x // y and x % y for every pair of the default
    run's or the soak run's: one module to compile."""
    xs = {d: ot.tensor(d, (None,), name=f"x_{d}") for d in REAL}
    ys = {d: ot.tensor(d, (None,), name=f"y_{d}") for d in REAL}
    outputs = [op(xs[a], ys[b]) for a, b in request.param for op in (ot.int_div, ot.mod)]
    inputs = [*xs.values(), *ys.values()]
    return request.param, {mode: opkit.function(inputs, outputs, mode=mode, on_unused_input="ignore")
                           for mode in ("FAST_RUN", "FAST_COMPILE")}


def _corners(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return [True, False]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return [0, 1, -1, 2, -2, 3, -7, 7, info.min, info.max, info.min + 1, info.max - 1]
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e300, -1e-300, np.inf, -np.inf, np.nan, 5e-324, 1e4, 7.0]


def _values(dtype, n):
    dt = np.dtype(dtype)
    corners = st.sampled_from([c for c in _corners(dtype) if dt.kind != "u" or c >= 0])
    if dt.kind == "b":
        elements = st.booleans()
    elif dt.kind in "iu":
        elements = st.one_of(corners, st.integers(int(np.iinfo(dt).min), int(np.iinfo(dt).max)))
    else:
        elements = st.one_of(corners, st.floats(width=8 * dt.itemsize, allow_subnormal=True))
    return hnp.arrays(dt, n, elements=elements.map(lambda v: _narrowed(v, dt)))


def _narrowed(value, dt):
    """A float corner in `dt` (1e300 becomes inf in float16 and float32)."""
    if dt.kind != "f":
        return value
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(dt)


@st.composite
def all_inputs(draw):
    n = draw(st.integers(0, 9))
    return [draw(_values(d, n)) for d in REAL] + [draw(_values(d, n)) for d in REAL]


# 25 examples: each draws 24 pairs of arrays of corners and any values; one module serves them all
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(arrays=all_inputs())
def test_int_div_and_mod_are_numpys_bit_for_bit(functions, arrays):
    by_name = dict(zip([f"x_{d}" for d in REAL] + [f"y_{d}" for d in REAL], arrays))
    pairs, functions = functions
    results = {mode: f(*arrays) for mode, f in functions.items()}
    k = 0
    for a, b in pairs:
        for name, ufunc in OPS:
            with np.errstate(all="ignore"):
                expected = ufunc(by_name[f"x_{a}"], by_name[f"y_{b}"])
            for mode, values in results.items():
                same_bits(values[k], expected, f"{name}({a}, {b}) {mode}")
            k += 1


def test_the_c_code_ran_for_every_c_dtype(functions):
    pairs, functions = functions
    nodes = functions["FAST_RUN"].maker.fgraph.toposort()
    with_c = {(str(n.op), n.inputs[0].dtype, n.inputs[1].dtype) for n in nodes if op_has_c(n)}
    for a, b in pairs:
        if "float16" in (a, b, str(np.result_type(a, b))):
            continue
        for name in ("int_div", "mod"):  # each pair's own node (a mixed pair's inputs are not cast to one dtype)
            assert (name, a, b) in with_c, (name, a, b)
    assert not any("float16" in key for key in with_c)


# FAST_RUN compiles int8 (C promotes it to int) and int64 (C's `/` on the type itself); int16 and int32 run the
# same C template (opkit_ifloordiv, opkit_imod) on the other widths: soak. FAST_COMPILE runs every width.
@pytest.mark.parametrize("mode, dtypes", [
    pytest.param("FAST_RUN", ("int8", "int64"), id="FAST_RUN"),
    pytest.param("FAST_RUN", ("int16", "int32"), id="FAST_RUN-rest", marks=pytest.mark.soak),
    pytest.param("FAST_COMPILE", ("int8", "int16", "int32", "int64"), id="FAST_COMPILE")])
def test_smallest_integer_floor_divided_by_minus_one_wraps_without_a_trap(mode, dtypes):
    """C's INT_MIN / -1 raises SIGFPE on x86; numpy wraps to INT_MIN, and its remainder is 0 (each signed width of
    `dtypes` in one function)."""
    inputs, outputs = [], []
    for dtype in dtypes:
        x, y = ot.tensor(dtype, (None,), name=f"x_{dtype}"), ot.tensor(dtype, (None,), name=f"y_{dtype}")
        inputs += [x, y]
        outputs += [x // y, x % y, x // -1, x % -1]
    f = opkit.function(inputs, outputs, mode=mode)
    arrays = []
    for dtype in dtypes:
        low = np.iinfo(dtype).min
        arrays += [np.array([low, low, 5, -5, 0], dtype), np.array([-1, 0, 0, -1, -1], dtype)]
    results = f(*arrays)
    for k, dtype in enumerate(dtypes):
        low = np.iinfo(dtype).min
        q, r, q1, r1 = results[4 * k:4 * k + 4]
        np.testing.assert_array_equal(q, np.array([low, 0, 0, 5, 0], dtype), err_msg=dtype, strict=True)
        np.testing.assert_array_equal(r, np.zeros(5, dtype), err_msg=dtype, strict=True)
        np.testing.assert_array_equal(q1, np.array([low, low, -5, 5, 0], dtype), err_msg=dtype, strict=True)
        np.testing.assert_array_equal(r1, np.zeros(5, dtype), err_msg=dtype, strict=True)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_floats_follow_floor_divide_not_fmod(mode):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], [x // y, x % y, ot.floor_div(x, y)], mode=mode)
    a = np.array([1.0, -1.0, 1.0, -1.0, -0.0, 0.0, 5.5, -5.5, np.inf, 1.0, 0.0, np.nan, 7.0])
    b = np.array([np.inf, np.inf, -np.inf, -np.inf, 3.0, -3.0, -2.0, 2.0, 2.0, 0.0, -0.0, 1.0, np.nan])
    q, r, q2 = f(a, b)
    with np.errstate(all="ignore"):
        same_bits(q, np.floor_divide(a, b), "floor_divide")
        same_bits(r, np.remainder(a, b), "remainder")
        same_bits(q2, np.floor_divide(a, b), "floor_div")
        assert not np.array_equal(np.remainder(a, b), np.fmod(a, b), equal_nan=True)  # the case is a real one


# (dtype, Python number, the result's dtype or None where numpy raises). The default run compiles a signed integer
# with an int (int8), with a float (int16: float64) and bool with an int; uint8's, float32's and bool with True's C is
# the same ops on another type of those kinds: soak (a module of their own).
SOAK_WEAK = (("uint8", 2, "uint8"), ("float32", 3, "float32"), ("bool", True, "int8"))
WEAK_CASES = [("int8", 3, "int8"), ("uint8", 2, "uint8"), ("int16", 2.5, "float64"), ("float32", 3, "float32"),
              ("bool", 2, "int64"), ("bool", True, "int8"), ("uint64", -1, None), ("int8", 300, None)]


def _weak_values(dtype):
    return np.array({"b": [0, 1, 1, 0], "u": [0, 7, 3, 100]}.get(np.dtype(dtype).kind, [-7, 7, 3, 100]), dtype)


def _weak_group(case):
    """The cases compiled with `case` (those that build): the default run's or soak's."""
    soak = case in SOAK_WEAK
    return tuple(c for c in WEAK_CASES if c[2] is not None and (c in SOAK_WEAK) == soak)


@functools.cache
def _weak_function(group):
    """x // number, x % number, number // x and number % x of every case of `group` (an input of its own each),
    outputs of one function (one module, not one per case: CI time)."""
    inputs, outputs = [], []
    for k, (dtype, number, _) in enumerate(group):
        x = ot.tensor(dtype, (None,), name=f"x{k}")
        inputs.append(x)
        outputs += [x // number, x % number, number // x, number % x]
    return opkit.function(inputs, outputs)


@pytest.mark.parametrize("dtype, number, expected", [
    pytest.param(*case, marks=pytest.mark.soak) if case in SOAK_WEAK else case for case in WEAK_CASES])
def test_python_numbers_are_weak_as_in_numpy(dtype, number, expected):
    x = ot.tensor(dtype, (None,), name="x")
    if expected is None:
        with pytest.raises(OverflowError):
            np.floor_divide(np.ones(1, dtype), number)
        with pytest.raises(OverflowError, match=str(number)):
            x // number
        return
    assert (x // number).dtype == expected == np.floor_divide(np.ones(1, dtype), number).dtype
    assert (number % x).dtype == np.remainder(number, np.ones(1, dtype)).dtype
    values = _weak_values(dtype)
    group = _weak_group((dtype, number, expected))
    k = group.index((dtype, number, expected))
    results = _weak_function(group)(*[_weak_values(case[0]) for case in group])
    with np.errstate(all="ignore"):
        expected_values = [np.floor_divide(values, number), np.remainder(values, number),
                           np.floor_divide(number, values), np.remainder(number, values)]
    for got, want in zip(results[4 * k:4 * k + 4], expected_values, strict=True):
        same_bits(got, want, f"{dtype} with {number!r}")


def test_complex_is_refused_as_numpy_refuses_it():
    z = ot.tensor("complex128", (None,), name="z")
    with pytest.raises(TypeError, match="int_div is not defined for inputs of dtype complex128"):
        z // 2
    with pytest.raises(TypeError, match="mod is not defined for inputs of dtype complex128"):
        ot.mod(z, z)


def test_fused_with_other_elementwise_ops_into_one_c_loop():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = ot.exp(x // y) * (x % 3.0) - ot.tanh(y) % x
    f = opkit.function([x, y], out)
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 1 and str(nodes[0].op).startswith("Fused") and op_has_c(nodes[0])
    a = np.array([-7.5, 7.25, 0.0, 3.0, -1e-3])
    b = np.array([2.0, -0.5, 3.0, 0.0, 0.25])
    with np.errstate(all="ignore"):
        expected = np.exp(a // b) * (a % 3.0) - np.tanh(b) % a
    np.testing.assert_allclose(f(a, b), expected, rtol=1e-15)
    i = ot.lvector("i")
    g = opkit.function([i], (i * 3 + 1) // 4 % 5)
    values = np.arange(-20, 20)
    np.testing.assert_array_equal(g(values), (values * 3 + 1) // 4 % 5, strict=True)


def test_shape_arithmetic_of_real_ops():
    """The shape code of a convolution: (h + 2 * pad - k) // stride + 1, on int64 scalars."""
    h, pad, k, stride = (ot.lscalar(n) for n in ("h", "pad", "k", "stride"))
    f = opkit.function([h, pad, k, stride], (h + 2 * pad - k) // stride + 1)
    assert int(f(7, 1, 3, 2)) == (7 + 2 - 3) // 2 + 1
    x = ot.dmatrix("x")
    assert tuple(opkit.function([x], [x.shape[0] // 2, x.shape[1] % 3])(np.zeros((7, 5)))) == (3, 2)


def test_mod_gradient_is_theanos():
    """d(x % y)/dx = 1, d(x % y)/dy = -(x // y), away from the jumps."""
    x = np.array([[5.3, -2.7, 7.9], [1.2, -9.1, 4.4]])
    y = np.array([[2.1, 1.3, -2.4], [0.7, 2.0, 1.9]])
    verify_grad(ot.mod, [x, y], mode="FAST_COMPILE")
    verify_grad(ot.mod, [x, y], mode="FAST_RUN")
    verify_grad(lambda a: a % 1.7, [x], mode="FAST_COMPILE")  # the C of d/dx is FAST_RUN's above


def test_int_div_gradient_is_zero_like_theano():
    x, y = ot.dvector("x"), ot.dvector("y")
    gx, gy = opkit.grad(ot.sum(ot.exp(x // y)), [x, y])
    f = opkit.function([x, y], [gx, gy])
    for g in f(np.array([5.0, -3.0]), np.array([2.0, 0.5])):
        np.testing.assert_array_equal(g, [0.0, 0.0], strict=True)
    i = ot.lvector("i")
    gi = opkit.grad(ot.sum((i // 2) * 1.5 + (i % 3) * 2.0), i)
    np.testing.assert_array_equal(gi.eval({i: np.array([3, -4])}), [0.0, 0.0])


class TestIntDivModShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the ops' C results are numpy's (tested above)

    def test_infer_shape(self):
        x, y = ot.dmatrix("x"), ot.drow("y") if hasattr(ot, "drow") else ot.dmatrix("y")
        self._compile_and_check([x, y], [x // y, x % y, ot.int_div(x, 2.0), ot.mod(3.0, y)],
                                [self.rng.rand(3, 4) + 0.5, self.rng.rand(1, 4) + 0.5], opkit.tensor.Elemwise)


def test_reduction_of_mod_fuses_and_matches_numpy():
    x = ot.lmatrix("x")
    f = opkit.function([x], [(x % 7).sum(axis=1), (x // 3).max(axis=0)])
    values = np.arange(-30, 30).reshape(6, 10)
    s, m = f(values)
    np.testing.assert_array_equal(s, (values % 7).sum(axis=1), strict=True)
    np.testing.assert_array_equal(m, (values // 3).max(axis=0), strict=True)


LAYOUT_PAIRS = [("int64", "int64"), ("int8", "uint8"), ("float64", "float64"), ("float32", "int16")]


@functools.cache
def _layout_function():
    """x // y, x % y and divmod(x, y)[0] of every pair of LAYOUT_PAIRS, on inputs of its own: outputs of one function
    (one module, not one per pair: CI time)."""
    inputs, outputs = [], []
    for a, b in LAYOUT_PAIRS:
        x, y = ot.tensor(a, (None, None), name=f"x_{a}_{b}"), ot.tensor(b, (None, None), name=f"y_{a}_{b}")
        inputs += [x, y]
        outputs += [x // y, x % y, divmod(x, y)[0]]
    return opkit.function(inputs, outputs)


@pytest.mark.parametrize("kind", ["fortran", "strided", "reversed", "byteswapped", "unaligned", "broadcast", "empty"])
@pytest.mark.parametrize("a, b", LAYOUT_PAIRS)
def test_every_layout(kind, a, b):
    from helpers.numeric import layout

    rng = np.random.default_rng(7)
    xv = rng.integers(-100, 100, (5, 7)).astype(a)
    yv = rng.integers(0 if b.startswith("u") else -9, 9, (5, 7)).astype(b)
    if kind == "byteswapped":
        xv, yv = xv.byteswap().view(xv.dtype.newbyteorder()), yv.byteswap().view(yv.dtype.newbyteorder())
    elif kind == "unaligned":
        raw = np.zeros(xv.nbytes + 1, np.uint8)[1:].view(xv.dtype).reshape(xv.shape)
        raw[...] = xv
        xv = raw
    elif kind == "broadcast":
        yv = yv[:1]
    elif kind == "empty":
        xv, yv = xv[:0], yv[:0]
    else:
        xv, yv = layout(xv, kind), layout(yv, kind)
    with np.errstate(all="ignore"):
        expected = [np.floor_divide(xv, yv), np.remainder(xv, yv), np.floor_divide(xv, yv)]
    k = LAYOUT_PAIRS.index((a, b))
    arrays = [np.ones((1, 1), d) for pair in LAYOUT_PAIRS for d in pair]  # the other pairs' inputs: 1 // 1
    arrays[2 * k:2 * k + 2] = [xv, yv]
    results = _layout_function()(*arrays)
    for got, want in zip(results[3 * k:3 * k + 3], expected, strict=True):
        same_bits(got, want, f"{a} {b} {kind}")

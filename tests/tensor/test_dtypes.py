"""Every built-in elementwise op computes like numpy for every dtype: value AND dtype, C and perform.

The dtype-pair tables compile one function per left-hand dtype (every op and
every right-hand dtype are outputs of that one function); the default run
compiles int64's and float64's with a right-hand dtype of each kind, soak
(`-m soak`) the rest of the matrix. Values include the edges where C and numpy used
to disagree: overflow (wrapping), 0 and negative divisors, inf, nan, -0.0.
"""

import warnings

import numpy as np
import pytest
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.fused.fusion import FusedElemwise
from opkit.core.tensor.shapes.alloc import cast

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
C_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64")
MODES = ("FAST_RUN", "FAST_COMPILE")
# Left-hand dtypes whose compiled table (a module of about 80 loops, 12 s on 2 cores) is soak (`-m soak`): each pairs
# with every dtype as the right-hand one in the default run's tables, and their loops are the same templates as
# int64/float64's (int64 and float64 stay; bool's logic is tests/tensor/test_tensor_compare_logic.py's).
SOAK_LEFT = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "float32")
# The right-hand dtypes of int64's and float64's compiled tables in the default run: bool, int8 (sign-extended),
# uint64 (it makes int64's result float64), the floats, complex (perform). The other integers convert by the same C
# casts as bool or int8: their part of the table ("rest") is soak. Each op of int64 with int64 is the C of int8 with
# int8 and float64 with float64 (tests/tensor/test_language_elementwise.py's int8 and float64 functions; int64's
# overflow: test_integer_overflow_wraps_like_numpy).
DEFAULT_RIGHT = {"int64": ("bool", "int8", "uint64", "float16", "float32", "float64", "complex64", "complex128"),
                 "float64": ("bool", "int8", "uint64", "float16", "float32", "complex64", "complex128")}


def _tables(left, mode="FAST_RUN"):
    """pytest.param(left, mode, part) of the compiled tables of `left`: "all" the right-hand dtypes, or the default
    run's "some" (DEFAULT_RIGHT) and soak's "rest"; soak for a compiled table of SOAK_LEFT."""
    soak = [pytest.mark.soak]
    if mode == "FAST_RUN" and left in DEFAULT_RIGHT:
        return [pytest.param(left, mode, "some"), pytest.param(left, mode, "rest", marks=soak)]
    return [pytest.param(left, mode, "all", marks=soak if mode == "FAST_RUN" and left in SOAK_LEFT else [])]


def _rights(left, part):
    if part == "all":
        return DTYPES
    return tuple(d for d in DTYPES if (d in DEFAULT_RIGHT[left]) == (part == "some"))


BINARY = {
    "add": (ot.add, np.add),
    "sub": (ot.sub, np.subtract),
    "mul": (ot.mul, np.multiply),
    "true_div": (ot.true_div, np.true_divide),
    "maximum": (ot.maximum, np.maximum),
    "pow": (ot.pow, np.power),
}
UNARY = {
    "neg": (ot.neg, np.negative),
    "exp": (ot.exp, np.exp),
    "log": (ot.log, np.log),
    "sqr": (ot.sqr, np.square),
    "sqrt": (ot.sqrt, np.sqrt),
}
# Exactly rounded by IEEE (and by numpy): compared bit for bit; the others to a few ulps.
EXACT = {"add", "sub", "mul", "true_div", "maximum", "neg", "sqr", "sqrt"}

N = 12  # every test vector has this length


def values(dtype, nonnegative=False):
    """Return N values of `dtype` covering its edges (extremes, 0, 1, -1, inf, nan, -0.0)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([True, False] * (N // 2))
    if dt.kind in "iu":
        info = np.iinfo(dt)
        low = 0 if nonnegative else info.min
        raw = [info.max, low, 0, 1, 2, 3, 7, info.max - 1, 5, 1, 0, 2]
        if not nonnegative:
            raw[8:10] = [-1, -7] if dt.kind == "i" else [info.max // 2 + 1, 11]
        return np.array(raw, dtype=dt)
    if dt.kind == "f":
        big = float(np.finfo(dt).max)
        raw = [1.5, -2.25, 0.0, -0.0, np.inf, -np.inf, np.nan, big, 3.0, 0.1, 1e-3, 7.0]
        if nonnegative:
            raw = [abs(v) for v in raw]
        return np.array(raw, dtype=dt)
    raw = [1.5 + 2j, -2.25 - 1j, 0, 1j, 3 + 0j, 0.1 - 0.2j, 2, -1, 1 + 1j, 0.5j, 4, -3j]
    return np.array(raw, dtype=dt)


def numpy_result(ufunc, *args):
    with np.errstate(all="ignore"):
        return np.asarray(ufunc(*args))


def assert_like_numpy(result, expected, exact=True, what=""):
    """Check dtype exactly; values bit for bit (nan where numpy has nan), or to a few ulps."""
    result = np.asarray(result)
    assert result.dtype == expected.dtype, f"{what}: dtype {result.dtype}, numpy gives {expected.dtype}"
    assert result.shape == expected.shape, f"{what}: shape {result.shape}, numpy gives {expected.shape}"
    if expected.dtype.kind in "biu" or exact:
        np.testing.assert_array_equal(result, expected, err_msg=what, strict=True)
    else:
        eps = float(np.finfo(expected.dtype).eps)
        np.testing.assert_allclose(result, expected, rtol=4 * eps, atol=0, equal_nan=True, err_msg=what)


def numpy_accepts(ufunc, *dtypes):
    try:
        numpy_result(ufunc, *[np.zeros(1, dtype=d) for d in dtypes])
        return True
    except TypeError:
        return False


def _table_graphs(left, rights):
    """(x, ys, keys, outputs): every op of BINARY of x of dtype `left` with each of `rights` that numpy accepts."""
    x = ot.tensor(left, (None,), name="x")
    ys = {d: ot.tensor(d, (None,), name=f"y_{d}") for d in rights}
    keys, outputs = [], []
    for name, (op, ufunc) in BINARY.items():
        for right in rights:
            if numpy_accepts(ufunc, left, right):
                keys.append((name, right))
                outputs.append(op(x, ys[right]))
    return x, ys, keys, outputs


@pytest.fixture(scope="module")
def binary_tables():
    """(left dtype, mode, part) -> {(op, right dtype): (result or exception, numpy result or exception)}."""
    cache = {}

    def table(left, mode, part):
        if (left, mode, part) in cache:
            return cache[(left, mode, part)]
        rights = _rights(left, part)
        x, ys, keys, outputs = _table_graphs(left, rights)
        pow_keys = [k for k in keys if k[0] == "pow"]
        other_keys = [k for k in keys if k[0] != "pow"]
        by_key = dict(zip(keys, outputs))
        f = opkit.function([x, *ys.values()], [by_key[k] for k in other_keys], mode=mode, on_unused_input="ignore")
        # pow gets nonnegative exponents here (negative ones raise, tested below)
        g = opkit.function([x, *ys.values()], [by_key[k] for k in pow_keys], mode=mode, on_unused_input="ignore")
        xv = values(left)
        yv = {d: values(d)[::-1].copy() for d in rights}
        yv_pow = {d: values(d, nonnegative=True)[::-1].copy() for d in rights}
        results = dict(zip(other_keys, f(xv, *yv.values())))
        results.update(zip(pow_keys, g(xv, *yv_pow.values())))
        expected = {}
        for name, right in keys:
            ufunc = BINARY[name][1]
            expected[(name, right)] = numpy_result(ufunc, xv, (yv_pow if name == "pow" else yv)[right])
        cache[(left, mode, part)] = (results, expected)
        return cache[(left, mode, part)]

    return table


@pytest.mark.parametrize("left, mode, part", [p for left in DTYPES for mode in MODES for p in _tables(left, mode)])
def test_binary_ops_match_numpy_for_every_dtype_pair(binary_tables, left, mode, part):
    results, expected = binary_tables(left, mode, part)
    assert results, "no op accepted this dtype"
    for key in expected:
        name, right = key
        assert_like_numpy(results[key], expected[key], exact=name in EXACT, what=f"{name}({left}, {right}) {mode}")


@pytest.mark.parametrize("left", C_DTYPES)
def test_c_dtypes_really_run_in_c(left):
    """The FAST_RUN graph of each table of a C dtype keeps its elementwise nodes in C (the test above ran C code)."""
    x, ys, keys, outputs = _table_graphs(left, DTYPES)
    f = opkit.function([x, *ys.values()], outputs, mode=FAST_RUN_GRAPH, on_unused_input="ignore")
    for node in f.maker.fgraph.toposort():
        dtypes = {v.dtype for v in node.inputs + node.outputs}
        wants_c = dtypes <= set(C_DTYPES)
        assert op_has_c(node) == wants_c, f"{node.op} on {sorted(dtypes)}: op_has_c is {op_has_c(node)}"


# The dtypes of the unary ops' C the default run compiles here: bool, int16 (its exp is float32), uint8 (its neg
# wraps) and uint64 (its exp is float64); float16 and complex64 run perform. The others are soak (FAST_COMPILE runs
# every dtype): the default run compiles the same ops on int8, float32, float64 (and runs float16 and complex128) in
# tests/tensor/test_language_elementwise.py, on int32 and float64 in test_tensor_elemwise.py's
# test_unary_ops_match_numpy; int64, uint16 and uint32 are the same C casts as int32, uint8 and uint64.
UNARY_C_DEFAULT = ("bool", "int16", "uint8", "uint64", "float16", "complex64")


@pytest.mark.parametrize("mode, dtypes", [
    pytest.param("FAST_RUN", UNARY_C_DEFAULT, id="FAST_RUN"),
    pytest.param("FAST_RUN", tuple(d for d in DTYPES if d not in UNARY_C_DEFAULT), id="FAST_RUN-rest",
                 marks=pytest.mark.soak),
    pytest.param("FAST_COMPILE", DTYPES, id="FAST_COMPILE")])
def test_unary_ops_match_numpy_for_every_dtype(mode, dtypes):
    xs = {d: ot.tensor(d, (None,), name=f"x_{d}") for d in dtypes}
    keys, outputs = [], []
    for name, (op, ufunc) in UNARY.items():
        for dtype in dtypes:
            if numpy_accepts(ufunc, dtype):
                keys.append((name, dtype))
                outputs.append(op(xs[dtype]))
    f = opkit.function(list(xs.values()), outputs, mode=mode)
    data = {d: values(d) for d in dtypes}
    for (name, dtype), result in zip(keys, f(*data.values())):
        expected = numpy_result(UNARY[name][1], data[dtype])
        assert_like_numpy(result, expected, exact=name in EXACT, what=f"{name}({dtype}) {mode}")
    assert {dtype for _, dtype in keys} == set(dtypes)
    assert ("exp", "int8") in keys or "int8" not in dtypes
    assert ("neg", "uint8") in keys or "uint8" not in dtypes


@pytest.mark.parametrize("mode", MODES)
def test_bool_add_is_logical_or_and_mul_logical_and(mode):
    a, b = ot.tensor("bool", (None,)), ot.tensor("bool", (None,))
    f = opkit.function([a, b], [a + b, a * b, ot.maximum(a, b), (a + b) * a], mode=mode)
    x, y = np.array([True, True, False, False]), np.array([True, False, True, False])
    for result, expected in zip(f(x, y), [x | y, x & y, x | y, (x | y) & x]):
        assert result.dtype == np.bool_
        # the bytes themselves: a C sum of two trues would store 2, which prints as True
        np.testing.assert_array_equal(result.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("build, message", [
    (lambda a: a - a, "sub is not defined for inputs of dtype bool, bool, as in numpy: numpy boolean subtract"),
    (lambda a: -a, "neg is not defined for inputs of dtype bool, as in numpy: The numpy boolean negative"),
    (lambda a: a - True, r"sub is not defined for inputs of dtype bool, Python bool True, as in numpy"),
])
def test_bool_ops_numpy_refuses_raise_typeerror_at_graph_build(build, message):
    a = ot.tensor("bool", (None,))
    with pytest.raises(TypeError, match=message):
        build(a)


def test_python_int_out_of_range_raises_numpy_overflowerror():
    x = ot.tensor("int8", (None,))
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        x + 1000


@pytest.mark.parametrize("mode", MODES)
def test_exp_of_int8_is_float16_like_numpy(mode):
    x = ot.tensor("int8", (None,))
    f = opkit.function([x], [ot.exp(x), ot.sqrt(x), ot.log(x) * 2], mode=mode)
    data = np.array([0, 1, 2, 5, -3, 127, -128], dtype=np.int8)
    with np.errstate(all="ignore"):
        expected_all = [np.exp(data), np.sqrt(data), np.log(data) * np.float16(2)]
    for result, expected in zip(f(data), expected_all):
        assert result.dtype == np.float16
        assert_like_numpy(result, np.asarray(expected), exact=False)


def _dtype_params(dtypes, soak_in_c):
    """pytest.param(mode, dtype) of every mode and dtype: the FAST_RUN cases of `soak_in_c` are soak."""
    return [pytest.param(mode, dtype, marks=[pytest.mark.soak] if mode == "FAST_RUN" and dtype in soak_in_c else [],
                         id=f"{dtype}-{mode}") for dtype in dtypes for mode in MODES]


def _group_function(build, dtype, mode, groups):
    """The function of `build`'s outputs for each dtype of dtype's group in `groups` (an input pair of its own each),
    made once per group and mode (one module, not one per dtype: CI time); return (f, {dtype: its outputs' slice})."""
    group = next(g for g in groups if dtype in g)
    if (build, group, mode) not in _GROUP_FUNCTIONS:
        inputs, outputs, slices = [], [], {}
        for d in group:
            x, y = ot.tensor(d, (None,), name=f"x_{d}"), ot.tensor(d, (None,), name=f"y_{d}")
            inputs += [x, y]
            built = build(x, y)
            slices[d] = slice(len(outputs), len(outputs) + len(built))
            outputs += built
        _GROUP_FUNCTIONS[(build, group, mode)] = opkit.function(inputs, outputs, mode=mode), slices
    return _GROUP_FUNCTIONS[(build, group, mode)]


def _run_in_group(build, dtype, mode, groups, xv, yv):
    """build(x, y)'s results for dtype's values xv, yv (its group's other dtypes get ones)."""
    f, slices = _group_function(build, dtype, mode, groups)
    arrays = [a for d in slices for a in ((xv, yv) if d == dtype else (np.ones(5, d), np.ones(5, d)))]
    return f(*arrays)[slices[dtype]]


_GROUP_FUNCTIONS = {}


def _overflowing(x, y):
    exprs = [x + y, x - y, x * y, ot.sqr(x), x ** 3, x * y + x * x]
    return exprs + [-x] if np.iinfo(x.dtype).min < 0 else exprs


# FAST_RUN's overflows of int16, int32 and uint32 are the C of int8's, int64's and uint8's on another width: soak.
# Each group of dtypes compiles one function per mode.
OVERFLOW_SOAK = ("int16", "int32", "uint32")
OVERFLOW_GROUPS = (("int8", "int64", "uint8", "uint64"), OVERFLOW_SOAK)


@pytest.mark.parametrize("mode, dtype", _dtype_params(OVERFLOW_GROUPS[0] + OVERFLOW_SOAK, OVERFLOW_SOAK))
def test_integer_overflow_wraps_like_numpy(mode, dtype):
    info = np.iinfo(dtype)
    xv = np.array([info.max, info.min, info.max // 2 + 3, 3, info.max], dtype=dtype)
    yv = np.array([info.max, 1, 5, info.max, 2], dtype=dtype)
    results = _run_in_group(_overflowing, dtype, mode, OVERFLOW_GROUPS, xv, yv)
    with np.errstate(all="ignore"):
        expected = [xv + yv, xv - yv, xv * yv, np.square(xv), xv ** np.array(3, dtype), xv * yv + xv * xv]
        if info.min < 0:
            expected.append(-xv)
    assert len(results) == len(expected)
    for result, want in zip(results, expected):
        assert_like_numpy(result, want)


def _true_div(x, y):
    return [x / y]


# FAST_RUN's true_div of int32, int64 and uint16 divides as int8's and uint64's C does: soak.
TRUE_DIV_SOAK = ("int32", "int64", "uint16")
TRUE_DIV_GROUPS = (("int8", "uint64", "bool"), TRUE_DIV_SOAK)


@pytest.mark.parametrize("mode, dtype", _dtype_params(TRUE_DIV_GROUPS[0] + TRUE_DIV_SOAK, TRUE_DIV_SOAK))
def test_integer_true_div_is_float64_and_survives_division_by_zero(mode, dtype):
    xv = np.array([1, 0, 1, 0, 1], dtype=dtype)
    yv = np.array([0, 0, 1, 1, 0], dtype=dtype)
    if np.dtype(dtype).kind == "i":
        xv[2] = -1
    result, = _run_in_group(_true_div, dtype, mode, TRUE_DIV_GROUPS, xv, yv)
    assert_like_numpy(result, numpy_result(np.true_divide, xv, yv))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int8", "int8"), ("uint8", "int8"), ("int32", "int16")])
def test_integer_to_negative_integer_power_raises_valueerror(mode, dtypes):
    x, y = ot.tensor(dtypes[0], (None,)), ot.tensor(dtypes[1], (None,))
    f = opkit.function([x, y], [x ** y, x ** y + x], mode=mode)
    with pytest.raises(ValueError, match=r"^Integers to negative integer powers are not allowed\.$"):
        np.power(np.array([2], dtypes[0]), np.array([-1], dtypes[1]))
    for base in (2, 1, 0):
        with pytest.raises(ValueError, match=r"Integers to negative integer powers are not allowed\."):
            f(np.array([base, 3], dtypes[0]), np.array([2, -1], dtypes[1]))
    # 0-size: nothing computed, nothing raised (as numpy)
    empty = f(np.zeros(0, dtypes[0]), np.zeros(0, dtypes[1]))
    assert empty[0].shape == (0,)


def test_negative_integer_power_in_c_fails_the_node_in_the_fused_loop():
    x, y = ot.tensor("int32", (None,)), ot.tensor("int32", (None,))
    f = opkit.function([x, y], (x ** y) * 2 + 1)
    (node,) = f.maker.fgraph.toposort()
    assert isinstance(node.op, FusedElemwise) and op_has_c(node)
    with pytest.raises(ValueError, match=r"Integers to negative integer powers are not allowed\."):
        f(np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1].ravel(), np.array([1, 1, 1, 1, 1, -2], np.int32))
    np.testing.assert_array_equal(f(np.array([3], np.int32), np.array([4], np.int32)), [163])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_runs_without_compile_error(mode, dtype):
    x, y = ot.tensor(dtype, (None,)), ot.tensor(dtype, (None,))
    exprs = [x + y, x - y, x * y, x / y, -x, ot.exp(x), ot.log(x), ot.sqr(x), ot.sqrt(x), ot.maximum(x, y),
             x ** y, ot.exp(x * y) + x / y]
    f = opkit.function([x, y], exprs, mode=mode)
    xv, yv = values(dtype), values(dtype)[::-1].copy()
    with np.errstate(all="ignore"):
        expected = [xv + yv, xv - yv, xv * yv, xv / yv, -xv, np.exp(xv), np.log(xv), np.square(xv), np.sqrt(xv),
                    np.maximum(xv, yv), xv ** yv, np.exp(xv * yv) + xv / yv]
    for result, want in zip(f(xv, yv), expected):
        assert_like_numpy(result, want)
    if mode == "FAST_RUN":
        assert not any(op_has_c(n) for n in f.maker.fgraph.toposort())


@pytest.mark.parametrize("mode", MODES)
def test_float16_rounds_after_every_operation_even_fused(mode):
    x, y, z = (ot.tensor("float16", (None,)) for _ in range(3))
    f = opkit.function([x, y, z], (x * y + z) * x - y)
    rng = np.random.default_rng(0)
    xv, yv, zv = (rng.uniform(-30, 30, 200).astype(np.float16) for _ in range(3))
    expected = (xv * yv + zv) * xv - yv  # numpy: half result after each op
    unrounded = ((xv.astype(np.float32) * yv + zv) * xv - yv).astype(np.float16)
    assert not np.array_equal(expected, unrounded), "the data must tell rounding per op from rounding once"
    assert_like_numpy(f(xv, yv, zv), expected)
    if mode == "FAST_RUN":
        assert any(isinstance(n.op, FusedElemwise) for n in f.maker.fgraph.toposort())


@pytest.mark.parametrize("mode", MODES)
def test_float32_intermediates_in_a_float64_expression_round_like_numpy(mode):
    a, b = ot.tensor("float32", (None,)), ot.tensor("float32", (None,))
    c = ot.tensor("float64", (None,))
    f = opkit.function([a, b, c], (a * b + a) * c - c, mode=mode)
    rng = np.random.default_rng(1)
    av, bv = rng.uniform(-3, 3, 100).astype(np.float32), rng.uniform(-3, 3, 100).astype(np.float32)
    cv = rng.uniform(-3, 3, 100)
    expected = (av * bv + av) * cv - cv
    in_float64 = (av.astype(np.float64) * bv + av) * cv - cv
    assert not np.array_equal(expected, in_float64)
    assert_like_numpy(f(av, bv, cv), expected)
    if mode == "FAST_RUN":
        (node,) = f.maker.fgraph.toposort()
        assert isinstance(node.op, FusedElemwise) and op_has_c(node)


@pytest.mark.parametrize("mode", MODES)
def test_maximum_propagates_nan_from_either_side(mode):
    x, y = ot.tensor("float64", (None,)), ot.tensor("float64", (None,))
    f = opkit.function([x, y], ot.maximum(x, y), mode=mode)
    xv, yv = np.array([np.nan, 1.0, np.nan, -np.inf]), np.array([1.0, np.nan, np.nan, 2.0])
    assert_like_numpy(f(xv, yv), np.maximum(xv, yv))


@pytest.mark.parametrize("mode", MODES)
def test_cast_overflow_to_narrower_float_warns_like_numpy(mode):
    x = ot.tensor("float64", (None,))
    f = opkit.function([x], cast(x, "float32") * 2, mode=mode)
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.array([1e300]).astype(np.float32)
    with pytest.warns(RuntimeWarning, match="overflow"):
        result = f(np.array([1e300, 1.0]))
    np.testing.assert_array_equal(result, np.array([np.inf, 2.0], np.float32), strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(np.array([1.0, 2.0]))


def test_weak_python_float_overflowing_the_dtype_warns_like_numpy():
    x = ot.tensor("float32", (None,))
    with pytest.warns(RuntimeWarning, match="overflow"):
        y = x + 1e300
    assert y.dtype == "float32"
    np.testing.assert_array_equal(opkit.function([x], y)(np.ones(2, np.float32)), np.full(2, np.inf, np.float32))


@pytest.mark.parametrize("dtype", ["float16", "complex64", "complex128"])
def test_nodes_without_exact_c_report_no_c_code(dtype):
    x = ot.tensor(dtype, (None,))
    node = (x + x).owner
    assert not op_has_c(node)
    assert op_has_c((ot.tensor("float32", (None,)) + 1).owner)
    assert not op_has_c(ot.exp(ot.tensor("int8", (None,))).owner)  # int8 in, float16 out


def test_fusion_keeps_c_work_out_of_a_perform_only_loop():
    x, y = ot.tensor("float32", (None,)), ot.tensor("float32", (None,))
    z, w = ot.tensor("float16", (None,)), ot.tensor("float16", (None,))
    f = opkit.function([x, y, z, w], ot.exp(x * y) + (z * w - z))
    nodes = f.maker.fgraph.toposort()
    in_c = [n for n in nodes if op_has_c(n)]
    in_python = [n for n in nodes if not op_has_c(n)]
    assert [str(n.op) for n in in_c] == ["Fused{mul,exp}"]
    assert [str(n.op) for n in in_python if "Fused" in str(n.op)] == ["Fused{mul,sub,add}"]
    rng = np.random.default_rng(3)
    xv, yv = rng.uniform(-2, 2, 50).astype(np.float32), rng.uniform(-2, 2, 50).astype(np.float32)
    zv, wv = rng.uniform(-9, 9, 50).astype(np.float16), rng.uniform(-9, 9, 50).astype(np.float16)
    result, expected = f(xv, yv, zv, wv), np.exp(xv * yv) + (zv * wv - zv)
    assert result.dtype == expected.dtype == np.float32
    # exp comes from libm in C and from numpy's own loop: ulps of the terms (~70), not of the sum
    np.testing.assert_allclose(result, expected, rtol=0, atol=8 * np.finfo(np.float32).eps * 100)

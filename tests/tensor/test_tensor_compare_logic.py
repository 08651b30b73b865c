"""minimum, comparisons, bitwise logic, switch, clip and cast against numpy: dtypes (mixed too), both modes."""

import numpy as np
import pytest
from helpers.numeric import DTYPES, check_close, layouts, special_values
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.testing import InferShapeTester, verify_grad

MODES = ("FAST_RUN", "FAST_COMPILE")
PAIRS = [(d, d) for d in DTYPES] + [
    ("int64", "uint64"), ("uint64", "int64"), ("int8", "uint64"), ("int8", "float16"), ("int32", "float32"),
    ("bool", "int8"), ("uint8", "int8"), ("float32", "float64"), ("int64", "float64"), ("uint64", "float32"),
    ("bool", "float64"), ("complex64", "float64"), ("uint32", "int64"),
]
COMPARISONS = [("lt", np.less), ("gt", np.greater), ("le", np.less_equal), ("ge", np.greater_equal),
               ("eq", np.equal), ("neq", np.not_equal)]
BINARY = [("minimum", np.minimum), ("and_", np.bitwise_and), ("or_", np.bitwise_or), ("xor", np.bitwise_xor)]


def _comparison_code(m, x, y):
    """All six comparisons in one uint8 (bit k: comparison k): one fused loop per dtype pair."""
    total = 0
    for bit, (name, ufunc) in enumerate(COMPARISONS):
        result = getattr(ot, name)(x, y) if m is ot else ufunc(x, y)
        total = total + m.cast(result, "uint8") * np.uint8(1 << bit) if m is ot else \
            total + result.astype(np.uint8) * np.uint8(1 << bit)
    return total


def _pair_values(dx, dy):
    """Arrays of dtypes dx and dy whose elementwise pairs include equal, close and extreme values."""
    x, y = special_values(dx), special_values(dy)
    n = max(len(x), len(y))
    x, y = np.resize(x, n), np.resize(y, n)
    xs = np.concatenate([x, x, np.roll(x, 3)])
    with np.errstate(all="ignore"):
        ys = np.concatenate([y, x.astype(dy) if np.can_cast(dx, dy, "same_kind") or dx == "bool" else y, y])
    return xs, ys


def _binary_cases():
    cases = []
    for dx, dy in PAIRS:
        cases.append(("compare", dx, dy))
        for name, ufunc in BINARY:
            if dx != dy and name != "minimum" and (dx, dy) not in (("bool", "int8"), ("uint8", "int8")):
                continue  # the bitwise ops on every dtype, mixed on a few pairs: fewer nodes to compile
            try:
                ufunc(np.zeros(1, dx), np.zeros(1, dy))
            except TypeError:
                continue
            cases.append((name, dx, dy))
    return cases


CASES = _binary_cases()
UFUNCS = dict(BINARY)
# The dtypes whose cases of one dtype with itself the default run compiles (FAST_RUN) here: bool, uint64
# (complex64: perform); the mixed pairs but SOAK_MIXED stay, and FAST_COMPILE runs every case. The others' C is soak
# ("rest"): the default run compiles the comparisons, minimum and the bitwise ops of int8, float32 and float64 with
# themselves (and runs float16 and complex128) in tests/tensor/test_language_elementwise.py, in these layouts and
# both modes; int16, int32 and int64 are the same C as int8's on another signed type, uint8, uint16 and uint32 as
# uint64's on another unsigned one.
C_DEFAULT = ("bool", "uint64", "complex64")
# Mixed pairs whose C repeats a kept pair's: uint64 with int64 is int64 with uint64 the other way round, uint32 with
# int64 promotes as uint8 with int8 does (to a wider signed type), int32 with float32 as int64 with float64 (to float64).
SOAK_MIXED = (("uint64", "int64"), ("uint32", "int64"), ("int32", "float32"))
C_CASES = {"default": [c for c in CASES if c[1:] not in SOAK_MIXED and (c[1] != c[2] or c[1] in C_DEFAULT)],
           "rest": [c for c in CASES if c[1:] in SOAK_MIXED or (c[1] == c[2] and c[1] not in C_DEFAULT)]}
PARTS = {"default": {"FAST_RUN": C_CASES["default"], "FAST_COMPILE": CASES}, "rest": {"FAST_RUN": C_CASES["rest"]}}


def _graph(cases):
    """(inputs, outputs): one output per case, on inputs of its own."""
    inputs, outputs = [], []
    for k, (name, dx, dy) in enumerate(cases):
        x = ot.tensor(dx, (None,), name=f"x{k}")
        y = ot.tensor(dy, (None,), name=f"y{k}")
        inputs += [x, y]
        outputs.append(_comparison_code(ot, x, y) if name == "compare" else getattr(ot, name)(x, y))
    return inputs, outputs


@pytest.fixture(scope="module")
def binary_functions():
    """(mode, part) -> the function of PARTS[part][mode]'s cases, made once."""
    made = {}

    def function(mode, part):
        if (mode, part) not in made:
            made[(mode, part)] = opkit.function(*_graph(PARTS[part][mode]), mode=mode)
        return made[(mode, part)]

    return function


def _expected(name, x, y):
    with np.errstate(all="ignore"):
        return np.asarray(_comparison_code(np, x, y) if name == "compare" else UFUNCS[name](x, y))


@pytest.mark.parametrize("layout", ["c", "strided", "reversed", "empty"])
@pytest.mark.parametrize("part", ["default", pytest.param("rest", marks=pytest.mark.soak)])
def test_binary_ops_match_numpy(binary_functions, part, layout):
    for mode, cases in PARTS[part].items():
        arrays, expected = [], []
        for name, dx, dy in cases:
            x, y = _pair_values(dx, dy)
            x, y = layouts(x)[layout].reshape(-1), layouts(y)[layout].reshape(-1)
            if layout == "reversed":
                x, y = x[::-1], y[::-1]
            arrays += [x, y]
            expected.append(_expected(name, x, y))
        results = binary_functions(mode, part)(*arrays)
        for (name, dx, dy), result, want in zip(cases, results, expected):
            check_close(result, want, True, what=f"{name}({dx}, {dy}) {layout} {mode}")


def test_mixed_signed_unsigned_comparisons_are_exact_in_c():
    nodes = opkit.function(*_graph(CASES), mode=FAST_RUN_GRAPH).maker.fgraph.toposort()
    c_pairs = {tuple(v.dtype for v in n.inputs if not isinstance(v, opkit.Constant))
               for n in nodes if op_has_c(n) and "lt" in str(n.op)}
    assert ("int64", "uint64") in c_pairs and ("int8", "uint64") in c_pairs and ("float64", "float64") in c_pairs
    x, y = ot.lvector("x"), ot.tensor("uint64", (None,), name="y")
    f = opkit.function([x, y], [x < y, ot.eq(x, y), x >= y])
    a = np.array([-1, 2**62, 5, -(2**63)], np.int64)
    b = np.array([2**64 - 1, 2**62, 4, 0], np.uint64)
    for result, ufunc in zip(f(a, b), (np.less, np.equal, np.greater_equal)):
        np.testing.assert_array_equal(result, ufunc(a, b), strict=True)


@pytest.mark.parametrize("mode", MODES)
def test_comparisons_with_python_scalars_follow_numpy(mode):
    i8, u8, f2 = ot.tensor("int8", (None,)), ot.tensor("uint8", (None,)), ot.tensor("float16", (None,))
    f = opkit.function([i8, u8, f2], [i8 < 300, i8 > -129, u8 > -1, ot.eq(u8, 2.5), i8 <= 1.5, ot.neq(f2, 1),
                                      u8 >= True], mode=mode)
    a, b, c = np.array([-128, 0, 127], np.int8), np.array([0, 2, 255], np.uint8), np.array([1, np.nan, 2], "f2")
    expected = [a < 300, a > -129, b > -1, b == 2.5, a <= 1.5, c != 1, b >= True]
    for result, want in zip(f(a, b, c), expected):
        np.testing.assert_array_equal(result, want, strict=True)


def test_operators_build_the_ops():
    x, y = ot.lvector("x"), ot.lvector("y")
    assert [str(v.owner.op) for v in (x < y, x > y, x <= y, x >= y, x & y, x | y, x ^ y, ~x, 3 & x, 3 | x, 3 ^ x)] \
        == ["lt", "gt", "le", "ge", "and_", "or_", "xor", "invert", "and_", "or_", "xor"]
    assert (x < y).dtype == "bool"
    assert (x == y) is False and x == x  # identity, as in PyTensor


@pytest.mark.parametrize("mode", MODES)
def test_invert_on_every_integer_dtype_and_bool(mode):
    dtypes = [d for d in DTYPES if np.dtype(d).kind in "biu"]
    xs = [ot.tensor(d, (None,), name=d) for d in dtypes]
    f = opkit.function(xs, [~x for x in xs], mode=mode)
    values = [special_values(d) for d in dtypes]
    for result, value in zip(f(*values), values):
        np.testing.assert_array_equal(result, np.invert(value), strict=True)


@pytest.mark.parametrize("op", [ot.invert, lambda x: x & x, lambda x: ot.or_(x, 1)])
def test_bitwise_ops_refuse_floats_as_numpy_does(op):
    with pytest.raises(TypeError, match=r"(invert|and_|or_) is not defined for inputs of dtype float64"):
        op(ot.dvector("x"))


@pytest.mark.parametrize("mode", MODES)
def test_switch_matches_where(mode):
    conds = {"bool": np.array([True, False, True, False]), "float64": np.array([np.nan, 0.0, -0.0, 2.0]),
             "int8": np.array([0, -1, 3, 0], np.int8)}
    values = {"int8": np.array([-128, 1, 2, 127], np.int8), "uint64": np.array([2**64 - 1, 0, 1, 5], np.uint64),
              "float32": np.array([np.inf, -1.5, 0.25, np.nan], np.float32),
              "float64": np.array([1.0, -2.0, 3.5, -0.0])}
    cases = [(c, a, b) for c in conds for a, b in [("int8", "uint64"), ("float32", "float64"), ("int8", "float32"),
                                                   ("float64", "float64")]]
    inputs, outputs = [], []
    for c, a, b in cases:
        vs = [ot.tensor(c, (None,)), ot.tensor(a, (None,)), ot.tensor(b, (None,))]
        inputs += vs
        outputs.append(ot.switch(*vs))
    cond_m = ot.dmatrix("c")
    inputs.append(cond_m)
    outputs.append(ot.switch(cond_m > 0, cond_m, 0))  # weak scalar branch, broadcasting
    f = opkit.function(inputs, outputs, mode=mode)
    arrays = [a for c, x, y in cases for a in (conds[c], values[x], values[y])]
    matrix = np.array([[-1.0, 2.0], [0.5, -0.0]])
    results = f(*arrays, matrix)
    for (c, a, b), result in zip(cases, results):
        np.testing.assert_array_equal(result, np.where(conds[c], values[a], values[b]), strict=True)
    np.testing.assert_array_equal(results[-1], np.where(matrix > 0, matrix, 0), strict=True)
    assert ot.where is ot.switch


@pytest.mark.parametrize("mode", MODES)
def test_clip_matches_numpy(mode):
    x, lo, hi = ot.dvector("x"), ot.dvector("lo"), ot.dvector("hi")
    i = ot.tensor("int8", (None,), name="i")
    f = opkit.function([x, lo, hi, i], [ot.clip(x, lo, hi), ot.clip(x, 0, 1), ot.clip(i, -3, 100),
                                        ot.clip(i, np.float32(0.5), 2)], mode=mode)
    xv = np.array([np.nan, -1.0, 0.5, 2.0, 5.0, 0.0])
    lov = np.array([0.0, np.nan, 0.0, 3.0, 0.0, -0.0])
    hiv = np.array([1.0, 1.0, np.nan, 1.0, 4.0, 0.0])
    iv = np.array([-128, 0, 127], np.int8)
    expected = [np.clip(xv, lov, hiv), np.clip(xv, 0, 1), np.clip(iv, -3, 100), np.clip(iv, np.float32(0.5), 2)]
    for result, want in zip(f(xv, lov, hiv, iv), expected):
        np.testing.assert_array_equal(result, want, strict=True)


CAST_TARGETS = ["bool", "int8", "uint64", "float16", "float32", "float64", "complex128"]
# The source dtypes whose casts' C (FAST_RUN) the default run compiles: bool, int8 and int64 (narrow and wide signed:
# sign extension, truncation), uint64, each float, complex (perform); FAST_COMPILE casts every dtype. int16, int32,
# uint8, uint16 and uint32 take the same C casts (soak, "rest").
CAST_C_DEFAULT = ("bool", "int8", "int64", "uint64", "float16", "float32", "float64", "complex64", "complex128")
CAST_PARTS = {"default": {"FAST_RUN": CAST_C_DEFAULT, "FAST_COMPILE": DTYPES},
              "rest": {"FAST_RUN": tuple(d for d in DTYPES if d not in CAST_C_DEFAULT)}}


def _cast_targets(source):
    return [t for t in CAST_TARGETS if not (source == "complex64" and t != "complex128")]


def _cast_graph(sources):
    inputs = [ot.tensor(d, (None,), name=d) for d in sources]
    return inputs, [ot.cast(x, t) for x in inputs for t in _cast_targets(x.dtype)]


@pytest.fixture(scope="module")
def cast_functions():
    """(mode, part) -> the function of every cast of CAST_PARTS[part][mode]'s sources, made once."""
    made = {}

    def function(mode, part):
        if (mode, part) not in made:
            made[(mode, part)] = opkit.function(*_cast_graph(CAST_PARTS[part][mode]), mode=mode)
        return made[(mode, part)]

    return function


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("part", ["default", pytest.param("rest", marks=pytest.mark.soak)])
def test_cast_matches_astype(cast_functions, part):
    for mode, sources in CAST_PARTS[part].items():
        values = [special_values(d) for d in sources]
        pairs = [(v, t) for v, d in zip(values, sources) for t in _cast_targets(d)]
        for result, (value, target) in zip(cast_functions(mode, part)(*values), pairs, strict=True):
            with np.errstate(all="ignore"):
                want = value.astype(target)
            check_close(result, want, True, what=f"cast {value.dtype} -> {target} {mode}")


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_cast_has_c_except_float_to_integer_or_narrower_float():
    nodes = opkit.function(*_cast_graph(DTYPES), mode=FAST_RUN_GRAPH).maker.fgraph.toposort()
    c_pairs = {(n.inputs[0].dtype, n.outputs[0].dtype) for n in nodes if op_has_c(n)}
    assert {("int64", "int8"), ("uint64", "float32"), ("float64", "bool"), ("float32", "float64"),
            ("bool", "float64")} <= c_pairs
    assert not any(np.dtype(a).kind == "f" and np.dtype(b).kind in "iu" for a, b in c_pairs)
    assert ("float64", "float32") not in c_pairs  # numpy warns on overflow: perform keeps the warning


def test_cast_to_an_unknown_dtype_raises_a_clear_error():
    with pytest.raises(TypeError, match=r"cast: 'float65' is not a numeric dtype; use a numpy dtype such as"):
        ot.cast(ot.dvector("x"), "float65")
    with pytest.raises(TypeError, match="cast: 'U3' is not a numeric dtype"):
        ot.cast(ot.dvector("x"), "U3")


def test_cast_fuses_with_its_neighbours():
    x = ot.lvector("x")
    f = opkit.function([x], ot.cast(x * 3, "float32") + 1)
    (node,) = f.maker.fgraph.toposort()
    assert str(node.op) == "Fused{mul,cast{float32},add}" and op_has_c(node)
    d = ot.dvector("d")
    g = opkit.function([d], ot.cast(d * 3, "int8") + 1)  # no C: the cast stays alone, numpy's warnings reach us
    assert [str(n.op) for n in g.maker.fgraph.toposort()] == ["mul", "Cast{int8}", "add"]
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
        g(np.array([np.nan]))
    value = np.array([1, 2**40 + 1])
    np.testing.assert_array_equal(f(value), (value * 3).astype("float32") + 1, strict=True)


@pytest.mark.parametrize("op, points", [
    (ot.minimum, [[1.0, -2.0, 3.0], [0.5, 1.0, 4.0]]),
    (lambda x, lo, hi: ot.clip(x, lo, hi), [[-1.0, 0.5, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
    (lambda a, b: ot.switch(ot.gt(a, b), a * 2, b * 3), [[1.0, -2.0, 3.0], [0.5, 1.0, 4.0]]),
])
def test_gradients(op, points):
    verify_grad(op, [np.array(p) for p in points], mode="FAST_COMPILE")


def test_comparison_gradient_is_zero_and_switch_gradient_routes():
    a, b = ot.dvector("a"), ot.dvector("b")
    ga, gb = opkit.grad(ot.sum(ot.switch(a > b, a, b) + ot.cast(a < b, "float64")), [a, b])
    f = opkit.function([a, b], [ga, gb])
    ra, rb = f(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(ra, [1.0, 0.0])
    np.testing.assert_array_equal(rb, [0.0, 1.0])


class TestLogicShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the ops' C results are numpy's (tested above)

    def test_infer_shape(self):
        x, y, z = ot.dmatrix("x"), ot.dvector("y"), ot.dmatrix("z")
        outputs = [ot.lt(x, y), ot.eq(x, z), ot.minimum(x, y), ot.switch(x > 0.5, y, z), ot.clip(x, y, 0.7),
                   ot.cast(x, "int8")]
        self._compile_and_check([x, y, z], outputs, [self.rng.rand(3, 4), self.rng.rand(4), self.rng.rand(3, 4)],
                                opkit.tensor.Elemwise)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_minimum_and_maximum_keep_numpys_signed_zeros_and_nans(mode, dtype):
    x, y = ot.tensor(dtype, (None,), name="x"), ot.tensor(dtype, (None,), name="y")
    f = opkit.function([x, y], [ot.minimum(x, y), ot.maximum(x, y)], mode=mode)
    a = np.array([0.0, -0.0, np.nan, 1.0, -0.0], dtype)
    b = np.array([-0.0, 0.0, 1.0, np.nan, -0.0], dtype)
    for result, ufunc in zip(f(a, b), (np.minimum, np.maximum)):
        want = ufunc(a, b)
        np.testing.assert_array_equal(result, want, strict=True)
        np.testing.assert_array_equal(np.signbit(result), np.signbit(want))

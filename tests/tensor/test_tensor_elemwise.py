"""opkit.tensor against numpy: values and dtypes, broadcasting, reductions, dot, shapes.

Each dtype pair is compiled once (every expression and broadcasting pattern as
outputs of one function) and the parametrised tests compare one output each,
so the suite stays fast whichever linker runs the graph.
"""

import functools
import itertools

import numpy as np
import pytest

import opkit
import opkit.tensor as ot

DTYPES = ("float32", "float64", "int32", "int64")

# name -> f(x, y): the same expression applied to symbolic variables and to arrays.
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "maximum": lambda x, y: _maximum(x)(x, y),
    "composite": lambda x, y: (x * y + x) * 2 - y,
}

# (x shape, y shape): same shape, matrix with vector, column with row, scalar with matrix.
BROADCAST = {
    "same": ((2, 3), (2, 3)),
    "matrix_vector": ((3, 4), (4,)),
    "column_row": ((3, 1), (1, 4)),
    "scalar_matrix": ((), (2, 3)),
}

UNARY = {
    "neg": (ot.neg, np.negative),
    "sqr": (ot.sqr, np.square),
    "exp": (ot.exp, np.exp),
    "log": (ot.log, np.log),
    "sqrt": (ot.sqrt, np.sqrt),
}


def _maximum(x):
    return np.maximum if isinstance(x, np.ndarray) else ot.maximum


def _symbolic(dtype, shape, name):
    """Return a variable whose static shape marks the length-1 axes as broadcastable."""
    return ot.tensor(dtype, tuple(1 if s == 1 else None for s in shape), name=name)


def _random(rng, dtype, shape, positive=False):
    """Return random values of `dtype`: no zeros (safe divisors), positive if asked."""
    if np.dtype(dtype).kind == "f":
        magnitude = rng.uniform(0.5, 3.0, size=shape)
        sign = 1 if positive else rng.choice([-1.0, 1.0], size=shape)
        return np.asarray(magnitude * sign, dtype=dtype)
    magnitude = rng.integers(1, 6, size=shape)
    sign = 1 if positive else rng.choice([-1, 1], size=shape)
    return np.asarray(magnitude * sign, dtype=dtype)


def assert_matches_numpy(result, expected):
    """Check the dtype exactly and the values up to the dtype's rounding."""
    result = np.asarray(result)
    assert result.dtype == expected.dtype, f"dtype {result.dtype}, numpy gives {expected.dtype}"
    assert result.shape == expected.shape
    if expected.dtype.kind == "f":
        rtol = 1e-5 if expected.dtype == np.float32 else 1e-12
        atol = rtol * max(1.0, float(np.max(np.abs(expected), initial=0.0)))
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(result, expected)


@pytest.fixture(scope="module")
def binary_results():
    """Return results(dtype_x, dtype_y) -> {(expr, pattern): (computed, numpy)}, compiled once per pair."""
    cache = {}

    def results(dtype_x, dtype_y):
        key = (dtype_x, dtype_y)
        if key not in cache:
            cache[key] = _evaluate_binary(dtype_x, dtype_y)
        return cache[key]

    return results


def _evaluate_binary(dtype_x, dtype_y):
    rng = np.random.default_rng([DTYPES.index(dtype_x), DTYPES.index(dtype_y)])
    inputs, values, outputs, expected, keys = [], [], [], [], []
    for pattern, (shape_x, shape_y) in BROADCAST.items():
        x = _symbolic(dtype_x, shape_x, f"x_{pattern}")
        y = _symbolic(dtype_y, shape_y, f"y_{pattern}")
        xv, yv = _random(rng, dtype_x, shape_x), _random(rng, dtype_y, shape_y)
        inputs += [x, y]
        values += [xv, yv]
        for name, expression in BINARY.items():
            keys.append((name, pattern))
            outputs.append(expression(x, y))
            with np.errstate(all="ignore"):
                expected.append(np.asarray(expression(xv, yv)))
    computed = opkit.function(inputs, outputs)(*values)
    return dict(zip(keys, zip(computed, expected)))


# A float with itself and two integers of different widths; the other fourteen pairs (a module each) are soak:
# tests/tensor/test_dtypes.py runs int64 and float64 with a dtype of each kind in the default run, and
# tests/tensor/test_fusion.py every pair of these four dtypes fused with broadcasting, so what this sweep adds is its
# broadcasting patterns of each expression, which each of these two runs (C for floats and for integers).
DEFAULT_PAIRS = {("float32", "float32"), ("int32", "int64")}


@pytest.mark.parametrize("pattern", BROADCAST)
@pytest.mark.parametrize("expression", BINARY)
@pytest.mark.parametrize("dtype_x,dtype_y", [
    pytest.param(*pair, marks=[] if pair in DEFAULT_PAIRS else [pytest.mark.soak])
    for pair in itertools.product(DTYPES, repeat=2)])
def test_binary_expression_matches_numpy(binary_results, dtype_x, dtype_y, expression, pattern):
    computed, expected = binary_results(dtype_x, dtype_y)[(expression, pattern)]
    assert_matches_numpy(computed, expected)


# float32 and int64 are soak: the default run compiles these ops on float32 (and float64) in
# tests/tensor/test_language_elementwise.py, on int64's kind with int32 here.
@pytest.mark.parametrize("dtype", [d if d in ("float64", "int32") else pytest.param(d, marks=pytest.mark.soak)
                                   for d in DTYPES])
def test_unary_ops_match_numpy(opkit_rng, dtype):
    x = ot.tensor(dtype, (None, None), name="x")
    positive = _random(opkit_rng, dtype, (3, 4), positive=True)
    f = opkit.function([x], [symbolic(x) for symbolic, _ in UNARY.values()] + [-x])
    results = f(positive)
    for name, result, (_, reference) in zip(UNARY, results, UNARY.values()):
        assert_matches_numpy(result, reference(positive))
    assert_matches_numpy(results[-1], -positive)


def test_unary_ops_broadcast_nothing_and_keep_static_shape():
    x = ot.tensor("float32", (1, None))
    for op in (ot.neg, ot.exp, ot.sqrt):
        assert op(x).type == ot.TensorType("float32", (1, None))


NEP50_CASES = [("int32", 2, "int32"), ("int64", 2, "int64"), ("float32", 2.0, "float32"), ("float32", 2, "float32"),
               ("int32", 2.5, "float64"), ("float64", 3, "float64")]
# int64 with 2 and float64 with 3 (an int constant of the array's own dtype): the C of int32 with 2 and float32 with 2
# on the wider types: soak (their own function).
NEP50_SOAK = (1, 5)


def _nep50_expressions(constant):
    return (lambda a: a + constant, lambda a: constant * a, lambda a: a - constant)


@functools.cache
def _nep50_results(soak):
    """The expressions of every case of the default run (or of NEP50_SOAK) as outputs of one function (one module):
    {case: (x's value, its results)}."""
    rng = np.random.default_rng(50)
    cases = [k for k in range(len(NEP50_CASES)) if (k in NEP50_SOAK) == soak]
    inputs, values, outputs = [], [], []
    for k in cases:
        dtype, constant, _ = NEP50_CASES[k]
        x = ot.vector(f"x{k}", dtype=dtype)
        inputs.append(x)
        values.append(_random(rng, dtype, (5,)))
        outputs += [expression(x) for expression in _nep50_expressions(constant)]
    results = opkit.function(inputs, outputs)(*values)
    return {k: (value, results[3 * j:3 * j + 3]) for j, (k, value) in enumerate(zip(cases, values))}


@pytest.mark.parametrize("case", [k if k not in NEP50_SOAK else pytest.param(k, marks=pytest.mark.soak)
                                  for k in range(len(NEP50_CASES))],
                         ids=["-".join(map(str, c)) for c in NEP50_CASES])
def test_python_scalar_constants_follow_nep50(case):
    dtype, constant, expected_dtype = NEP50_CASES[case]
    x = ot.vector("x", dtype=dtype)
    xv, results = _nep50_results(case in NEP50_SOAK)[case]
    expressions = _nep50_expressions(constant)
    for expression, result in zip(expressions, results, strict=True):
        reference = expression(xv)
        assert reference.dtype == expected_dtype  # what numpy >= 2 does
        assert expression(x).dtype == expected_dtype
        assert_matches_numpy(result, reference)


def test_numpy_scalar_and_array_constants_are_not_weak():
    x = ot.vector("x", dtype="int32")
    assert (x + np.int64(2)).dtype == str((np.ones(1, "int32") + np.int64(2)).dtype)
    assert (x + np.array([2, 3], dtype="int64")).dtype == "int64"
    assert (x + ot.constant(2, dtype="int64")).dtype == "int64"


SUM_CASES = [(None, False), (None, True), (0, False), (1, True), (-1, False), ((0, 2), False), ((0, 2), True)]


# float32's sums (every case, both spellings) run in the default run; float64's and int64's, the same C on wider types,
# and int32's (summed in int64, the widening loops of bool and uint8 in tests/tensor/test_reductions.py, whose int64,
# uint8 and bool sums and tests/tensor/test_reductions_order_free.py's int64 ones run the integer loops over every kind
# of axis in the default run) are soak (their own function).
SUM_DEFAULT = ("float32",)


@functools.cache
def _sums(dtypes):
    """x.sum(...) and ot.sum(x, ...) for every case of SUM_CASES and every dtype of `dtypes`, outputs of one function
    (one module, not one per case or dtype: CI time); return ({dtype: {case: (method's output, function's output)}},
    f, the positions of f's inputs and outputs of each dtype)."""
    inputs, outputs, spelled, keys = [], [], {}, []
    for dtype in dtypes:
        x = ot.tensor3(f"x_{dtype}", dtype=dtype)
        inputs.append(x)
        spelled[dtype] = {(axis, keepdims): (x.sum(axis=axis, keepdims=keepdims),
                                             ot.sum(x, axis=axis, keepdims=keepdims))
                          for axis, keepdims in SUM_CASES}
        for case, pair in spelled[dtype].items():
            outputs += pair
            keys += [(dtype, case, 0), (dtype, case, 1)]
    return spelled, opkit.function(inputs, outputs), keys


@pytest.mark.parametrize("dtype", [d if d in SUM_DEFAULT else pytest.param(d, marks=pytest.mark.soak)
                                   for d in DTYPES])
@pytest.mark.parametrize("axis,keepdims", SUM_CASES)
def test_sum_matches_numpy(opkit_rng, dtype, axis, keepdims):
    dtypes = SUM_DEFAULT if dtype in SUM_DEFAULT else tuple(d for d in DTYPES if d not in SUM_DEFAULT)
    spelled, f, keys = _sums(dtypes)
    xv = _random(opkit_rng, dtype, (2, 3, 4))
    reference = np.asarray(np.sum(xv, axis=axis, keepdims=keepdims))
    arrays = [xv if other == dtype else np.zeros((2, 3, 4), other) for other in dtypes]
    results = {key[1:]: out for key, out in zip(keys, f(*arrays)) if key[0] == dtype}
    for k, symbolic in enumerate(spelled[dtype][(axis, keepdims)]):  # the method, then the function
        assert symbolic.ndim == reference.ndim
        assert_matches_numpy(results[((axis, keepdims), k)], reference)


def test_sum_rejects_an_axis_out_of_range():
    with pytest.raises(ValueError, match="sum of a 2-d tensor: axis 2 is out of bounds for array of dimension 2"):
        ot.matrix().sum(axis=2)


# float32 with float32 and int32 with float32 are soak: the same dot as float64 with float64 and of mixed dtypes as
# float32 with float64 (tests/tensor/test_dot_c.py computes every product of each dtype in every layout).
DOT_PAIRS = {"default": (("float64", "float64"), ("float32", "float64"), ("int64", "int32")),
             "soak": (("float32", "float32"), ("int32", "float32"))}
DOT_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2))]


@functools.cache
def _dots(part):
    """ot.dot(x, y) and x.dot(y) of every shape of DOT_SHAPES for every pair of DOT_PAIRS[part], inputs of their own:
    outputs of one function (one module, not one per case: CI time); return (f, its cases in order)."""
    pairs = DOT_PAIRS[part]
    inputs, outputs, cases = [], [], []
    for dtype_x, dtype_y in pairs:
        for shape_x, shape_y in DOT_SHAPES:
            x = ot.tensor(dtype_x, (None,) * len(shape_x), name="x")
            y = ot.tensor(dtype_y, (None,) * len(shape_y), name="y")
            inputs += [x, y]
            outputs += [ot.dot(x, y), x.dot(y)]
            cases.append((dtype_x, dtype_y, shape_x, shape_y))
    return opkit.function(inputs, outputs), cases


@pytest.mark.parametrize("dtype_x,dtype_y", [
    ("float64", "float64"), pytest.param("float32", "float32", marks=pytest.mark.soak), ("float32", "float64"),
    pytest.param("int32", "float32", marks=pytest.mark.soak), ("int64", "int32")])
@pytest.mark.parametrize("shape_x,shape_y", DOT_SHAPES, ids=["vv", "mv", "vm", "mm"])
def test_dot_matches_numpy(opkit_rng, dtype_x, dtype_y, shape_x, shape_y):
    f, cases = _dots("soak" if (dtype_x, dtype_y) in DOT_PAIRS["soak"] else "default")
    k = cases.index((dtype_x, dtype_y, shape_x, shape_y))
    xv, yv = _random(opkit_rng, dtype_x, shape_x), _random(opkit_rng, dtype_y, shape_y)
    arrays = [np.ones(shape, dtype) for dx, dy, sx, sy in cases for dtype, shape in ((dx, sx), (dy, sy))]
    arrays[2 * k:2 * k + 2] = [xv, yv]
    function_spelling, method_spelling = f(*arrays)[2 * k:2 * k + 2]
    assert_matches_numpy(function_spelling, np.asarray(np.dot(xv, yv)))
    assert_matches_numpy(method_spelling, np.asarray(np.dot(xv, yv)))


def test_dot_rejects_bad_operands():
    with pytest.raises(TypeError, match="dot takes vectors and matrices, got 3-d and 1-d"):
        ot.dot(ot.tensor3(), ot.vector())
    with pytest.raises(ValueError, match=r"dot: shapes \(3, 4\) and \(5,\) are not aligned"):
        ot.dot(ot.tensor("float64", (3, 4)), ot.tensor("float64", (5,)))


def test_static_broadcast_mismatch_is_reported():
    with pytest.raises(ValueError, match=r"cannot be broadcast together: axis 0 has lengths \[3, 4\]"):
        ot.tensor("float64", (3,)) + ot.tensor("float64", (4,))


def test_shape_and_shape_index(opkit_rng):
    x = ot.matrix("x")
    xv = _random(opkit_rng, "float64", (3, 5))
    f = opkit.function([x], [x.shape, ot.shape(x), x.shape[0], x.shape[1]])
    full, again, rows, cols = f(xv)
    np.testing.assert_array_equal(full, [3, 5])
    np.testing.assert_array_equal(again, [3, 5])
    assert full.dtype == np.int64
    assert int(rows) == 3 and int(cols) == 5


def test_shape_index_out_of_range_names_the_dimensions():
    with pytest.raises(IndexError, match="has 2 dimensions; no shape\\[2\\]"):
        ot.matrix("x").shape[2]


def test_eval_computes_a_variable(opkit_rng):
    x = ot.vector("x")
    xv = _random(opkit_rng, "float64", (4,))
    np.testing.assert_allclose((x * 2 + 1).eval({x: xv}), xv * 2 + 1)
    assert (x * 2 + 1).eval({x: xv}).dtype == np.float64
    assert ot.constant(3).eval() == 3
    assert x.shape[0].eval({x: xv}) == 4


POWER_CASES = [("float64", 2), ("float32", 0.5), ("int32", 2), ("int64", 3), ("float32", 2.0)]


@functools.cache
def _powers():
    """x ** exponent and exponent ** x of every case of POWER_CASES (an input each): one function (one module)."""
    inputs, outputs = [], []
    for k, (dtype, exponent) in enumerate(POWER_CASES):
        x = ot.vector(f"x{k}", dtype=dtype)
        inputs.append(x)
        outputs += [x ** exponent, exponent ** x]
    return opkit.function(inputs, outputs)


@pytest.mark.parametrize("dtype,exponent", POWER_CASES)
def test_power_matches_numpy(opkit_rng, dtype, exponent):
    k = POWER_CASES.index((dtype, exponent))
    xv = _random(opkit_rng, dtype, (6,), positive=True)
    arrays = [np.ones(6, d) for d, _ in POWER_CASES]
    arrays[k] = xv
    power, base = _powers()(*arrays)[2 * k:2 * k + 2]
    assert_matches_numpy(power, xv ** exponent)
    assert_matches_numpy(base, np.asarray(exponent ** xv))


def test_power_of_two_variables(opkit_rng):
    x, y = ot.vector("x"), ot.vector("y", dtype="int32")
    xv, yv = _random(opkit_rng, "float64", (5,), positive=True), _random(opkit_rng, "int32", (5,), positive=True)
    assert_matches_numpy(opkit.function([x, y], x ** y)(xv, yv), xv ** yv)


def test_unary_minus_and_plus(opkit_rng):
    x = ot.matrix("x", dtype="int32")
    xv = _random(opkit_rng, "int32", (2, 2))
    assert_matches_numpy(opkit.function([x], -x)(xv), -xv)
    assert +x is x


@pytest.mark.parametrize("dtypes,expected", [
    (("int32", "float32"), "float64"),
    (("int64", "float32"), "float64"),
    (("int32", "int64"), "int64"),
    (("float32", "float64"), "float64"),
    (("float32", "float32"), "float32"),
    (("int8", "int16", "float32"), "float32"),
    (("int32",), "int32"),
])
def test_upcast_follows_numpy_promotion(dtypes, expected):
    assert ot.upcast(*dtypes) == expected
    assert ot.upcast(*dtypes) == str(np.result_type(*dtypes))


@pytest.mark.parametrize("dtype_x,dtype_y", list(itertools.product(DTYPES, repeat=2)))
def test_elemwise_output_type_is_the_upcast(dtype_x, dtype_y):
    x, y = ot.vector(dtype=dtype_x), ot.vector(dtype=dtype_y)
    assert (x + y).dtype == ot.upcast(dtype_x, dtype_y)
    assert (x * y).type == ot.TensorType(ot.upcast(dtype_x, dtype_y), (None,))


def test_constants_and_lists_become_tensor_constants():
    c = ot.as_tensor_variable([[1, 2], [3, 4]])
    assert isinstance(c, ot.TensorConstant)
    assert c.dtype == "int64" and c.ndim == 2
    assert ot.as_tensor_variable(c) is c
    assert ot.constant(1.5).dtype == "float64"
    with pytest.raises(TypeError, match="not numeric"):
        ot.as_tensor_variable("text")


def test_named_types_and_constructors():
    assert ot.fmatrix == ot.TensorType("float32", (None, None))
    assert ot.lvector.dtype == "int64" and ot.dscalar.ndim == 0 and ot.itensor3.ndim == 3
    assert isinstance(ot.fmatrix(), ot.TensorVariable)
    assert ot.tensor4("t", dtype="int32").type == ot.itensor4
    assert ot.TensorType("float64", broadcastable=[False, True]).shape == (None, 1)
    assert ot.TensorType("float64", broadcastable=[False]).broadcastable == (False,)

"""sum, prod, max, min, mean, argmax, argmin: dtypes, axes, keepdims and layouts against numpy, in C and perform.

Each dtype compiles one function holding every reduction (one axis spec per
reduction, rotated across dtypes so every spec meets every reduction), and that
function is called on many layouts and shapes, 0-size ones included.
"""

import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.testing import InferShapeTester, verify_grad
from helpers.modes import FAST_RUN_GRAPH
from helpers.numeric import layout

C_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
DTYPES = C_DTYPES + ("float16", "complex128")
KINDS = ("sum", "prod", "max", "min", "mean")
SPECS = [(None, False), (None, True), (1, False), (-1, True), ((0, 2), False), ((0, 1), True), ((1, 2), False),
         (0, False)]
SHAPES = [(2, 3, 4), (1, 5, 3), (0, 3, 4), (2, 0, 4), (3, 4, 0)]
LAYOUTS = ("c", "fortran", "strided", "reversed")


def _specs(dtype, kind):
    i, j = DTYPES.index(dtype), KINDS.index(kind)
    return [SPECS[(i + j) % len(SPECS)]]  # over the 13 dtypes, every spec meets every reduction


def _cases(dtype):
    return [(kind, axis, keepdims) for kind in KINDS for axis, keepdims in _specs(dtype, kind)
            if not (kind in ("max", "min") and dtype.startswith("complex"))]


_FUNCTIONS = {}


def _function(dtype, mode):
    if (dtype, mode) not in _FUNCTIONS:
        x = ot.tensor(dtype, (None, None, None), name="x")
        outputs = [getattr(ot, kind)(x, axis=axis, keepdims=keepdims) for kind, axis, keepdims in _cases(dtype)]
        _FUNCTIONS[dtype, mode] = opkit.function([x], outputs, mode=mode)
    return _FUNCTIONS[dtype, mode]


def _values(dtype, shape, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "u":
        return rng.integers(0, 4, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-3, 4, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _numpy(kind, x, axis, keepdims):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, kind)(x, axis=axis, keepdims=keepdims))


def assert_matches(result, expected, what):
    """Dtype and shape exactly; integers and max/min exactly, float sums to a few ulps of their terms."""
    result, expected = np.asarray(result), np.asarray(expected)
    assert result.dtype == expected.dtype, f"{what}: dtype {result.dtype}, numpy {expected.dtype}"
    assert result.shape == expected.shape, f"{what}: shape {result.shape}, numpy {expected.shape}"
    if expected.dtype.kind in "biu" or "max" in what or "min" in what:
        np.testing.assert_array_equal(result, expected, err_msg=what)
    else:
        rtol = {2: 1e-2, 4: 1e-5, 8: 1e-12, 16: 1e-12}[expected.dtype.itemsize]
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=rtol, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_reduction_matches_numpy_on_every_layout(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    fast_run, fast_compile = _function(dtype, "FAST_RUN"), _function(dtype, "FAST_COMPILE")
    in_c = [op_has_c(node) for node in fast_run.maker.fgraph.toposort()]
    assert all(in_c) if dtype in C_DTYPES else not any(in_c), (dtype, in_c)
    for shape in SHAPES:
        base = _values(dtype, shape, rng)
        for kind_of_layout in LAYOUTS:
            x = layout(base, kind_of_layout)
            expected, failure = [], None
            try:
                expected = [_numpy(kind, x, axis, keepdims) for kind, axis, keepdims in _cases(dtype)]
            except ValueError as exc:  # max/min over an empty axis
                failure = exc
            for f, mode in ((fast_run, "FAST_RUN"), (fast_compile, "FAST_COMPILE")):
                if failure is not None:
                    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
                        f(x)
                    continue
                for (kind, axis, keepdims), result, value in zip(_cases(dtype), f(x), expected):
                    assert_matches(result, value, f"{kind}(axis={axis}, keepdims={keepdims}) of {dtype} {shape} "
                                                  f"{kind_of_layout} in {mode}")


@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_and_min_of_an_empty_axis_raise_numpys_error_only_when_they_reduce_nothing(kind):
    x = ot.dmatrix("x")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([x], getattr(ot, kind)(x, axis=1), mode=mode)
        assert f(np.zeros((0, 3))).shape == (0,)
        ufunc = "maximum" if kind == "max" else "minimum"
        with pytest.raises(ValueError, match=f"zero-size array to reduction operation {ufunc} which has no identity"):
            f(np.zeros((3, 0)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_and_min_propagate_nan_like_numpy(dtype):
    # max and min over every axis: the graph test_reductions_order_free.py compiles for the dtype (one module for both)
    x = ot.tensor(dtype=dtype, shape=(None, None))
    cases = [(kind, axis) for kind in ("max", "min") for axis in (None, 0, 1)]
    f = opkit.function([x], [getattr(ot, kind)(x, axis=axis) for kind, axis in cases])
    assert all(op_has_c(node) for node in f.maker.fgraph.toposort())
    values = np.arange(40, dtype=dtype).reshape(4, 10)
    values[2, 3] = np.nan  # in one of the 8 lanes of a leaf
    values[1, 9] = np.nan  # in a leaf's tail
    values[0, 9] = -np.inf
    long = np.arange(1000, dtype=dtype).reshape(2, 500)
    long[0, 200] = long[1, 499] = np.nan  # in a later leaf; in the last leaf's tail
    for data in (values, long, -long, values[::-1]):
        for result, (kind, axis) in zip(f(data), cases):
            np.testing.assert_array_equal(result, getattr(np, kind)(data, axis=axis))


def test_integer_sums_and_products_wrap_like_numpy():
    i64, u8, i8 = ot.lvector("i"), ot.tensor("uint8", (None,), name="u"), ot.tensor("int8", (None,), name="s")
    f = opkit.function([i64, u8, i8], [ot.sum(i64), ot.prod(i64), ot.sum(u8), ot.prod(i8), ot.mean(i64)])
    assert all(op_has_c(node) for node in f.maker.fgraph.toposort())
    big = np.array([2**62, 2**62, 2**62, 3, -7], dtype=np.int64)
    small = np.arange(1, 250, dtype=np.uint8)
    signed = np.array([-128, 127, -3, 5] * 10, dtype=np.int8)
    expected = [np.sum(big), np.prod(big), np.sum(small), np.prod(signed), np.mean(big)]
    for result, value in zip(f(big, small, signed), expected):
        np.testing.assert_array_equal(result, value, strict=True)


def test_a_float32_sum_of_a_million_values_is_as_accurate_as_numpys():
    x = ot.fvector("x")
    f = opkit.function([x], [ot.sum(x), ot.mean(x)])
    values = np.random.default_rng(5).random(10**6).astype(np.float32) + np.float32(1.0)
    exact = np.sum(values.astype(np.float64))
    total, mean = f(values)
    assert total.dtype == np.float32 and mean.dtype == np.float32
    numpy_error = abs(float(np.sum(values)) - exact)
    assert abs(float(total) - exact) <= max(numpy_error, float(np.spacing(np.float32(exact))))
    assert abs(float(mean) - exact / values.size) <= max(abs(float(np.mean(values)) - exact / values.size),
                                                          float(np.spacing(np.float32(exact / values.size))))
    sequential = np.cumsum(values, dtype=np.float32)[-1]  # a plain loop: far off, so the bound above is tight
    assert abs(float(sequential) - exact) > 10 * abs(float(total) - exact)


def test_reductions_over_many_outputs_and_long_axes_take_every_path():
    """Beyond one chunk of 65536 elements: one output (chunks in a tree) and many outputs (one per thread)."""
    x = ot.dmatrix("x")
    f = opkit.function([x], [ot.sum(x), ot.sum(x, axis=1), ot.sum(x, axis=0), ot.max(x, axis=1), ot.mean(x)])
    values = np.random.default_rng(2).standard_normal((20, 70001))
    for data in (values, np.asfortranarray(values), values[:, ::-1]):
        results = f(data)
        expected = [np.sum(data), np.sum(data, axis=1), np.sum(data, axis=0), np.max(data, axis=1), np.mean(data)]
        for result, value in zip(results, expected):
            np.testing.assert_allclose(result, value, rtol=1e-12, atol=1e-9)


# ---- axes and errors -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduce", [ot.sum, ot.prod, ot.max, ot.min, ot.mean, ot.argmax, ot.argmin])
def test_an_axis_out_of_range_raises_numpys_axis_error(reduce):
    x = ot.dmatrix("x")
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        reduce(x, axis=2)
    with pytest.raises(ValueError, match="out of bounds"):
        reduce(x, axis=(0, -3))


@pytest.mark.parametrize("reduce", [ot.sum, ot.max, ot.mean, ot.argmax])
def test_a_repeated_axis_raises_value_error(reduce):
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match=r"names an axis twice \(duplicate value in 'axis'\); list each axis once"):
        reduce(x, axis=(1, -1))


def test_a_non_integer_axis_raises_type_error():
    with pytest.raises(TypeError, match="axis must be None, an integer or a tuple of integers, got 1.5"):
        ot.sum(ot.dmatrix("x"), axis=1.5)


def test_negative_and_positive_axes_make_the_same_op():
    x = ot.dtensor3("x")
    assert ot.sum(x, axis=-1).owner.op == ot.sum(x, axis=2).owner.op
    assert ot.max(x, axis=(-1, 0)).owner.op == ot.max(x, axis=(0, 2)).owner.op


def test_methods_and_result_dtypes():
    x, i, b = ot.dmatrix("x"), ot.imatrix("i"), ot.tensor("bool", (None,), name="b")
    for name in ("sum", "prod", "max", "min", "mean", "argmax", "argmin"):
        assert getattr(x, name)(axis=0).owner.op == getattr(ot, name)(x, axis=0).owner.op
    assert [v.dtype for v in (i.sum(), i.prod(), i.max(), i.mean(), i.argmax(), b.sum(), b.max(), b.mean())] == [
        "int64", "int64", "int32", "float64", "int64", "int64", "bool", "float64"]
    assert ot.tensor("uint8", (None,)).sum().dtype == "uint64"
    assert ot.tensor("float16", (None,)).mean().dtype == "float16"
    assert x.sum(axis=1, keepdims=True).type.shape == (None, 1)
    assert ot.tensor("float64", (3, 4)).max(axis=0).type.shape == (4,)


def test_argmax_and_argmin_match_numpy_with_axes_ties_and_keepdims():
    x = ot.dtensor3("x")
    outputs = [ot.argmax(x), ot.argmin(x, axis=1), ot.argmax(x, axis=-1, keepdims=True), ot.argmax(x, axis=(0, 2)),
               ot.argmin(x, keepdims=True)]
    values = np.random.default_rng(0).integers(0, 3, (2, 3, 4)).astype(float)  # many ties: the first wins
    moved = np.moveaxis(values, 1, 0).reshape(3, -1)
    expected = [np.argmax(values), np.argmin(values, axis=1), np.argmax(values, axis=-1, keepdims=True),
                np.argmax(moved, axis=1), np.argmin(values, keepdims=True)]
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        for result, value in zip(opkit.function([x], outputs, mode=mode)(values), expected):
            np.testing.assert_array_equal(result, value, strict=True)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        opkit.function([x], ot.argmax(x, axis=1))(np.zeros((2, 0, 3)))
    with pytest.raises(TypeError, match="complex numbers have no order"):
        ot.argmax(ot.tensor("complex128", (None,)))


# ---- gradients and shapes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, axis, keepdims", [
    ("sum", None, False), ("sum", 1, True), ("prod", None, False), ("prod", (0, 2), False), ("max", None, False),
    ("max", -1, False), ("min", 1, True), ("min", (0, 1), False), ("mean", None, False), ("mean", (1, 2), True)])
def test_gradients_match_finite_differences(kind, axis, keepdims):
    rng = np.random.default_rng(KINDS.index(kind))
    point = rng.uniform(0.5, 1.5, (2, 3, 4)) * rng.choice([-1, 1], (2, 3, 4))  # distinct: no ties for max/min
    verify_grad(lambda x: getattr(ot, kind)(x, axis=axis, keepdims=keepdims), [point], rng=np.random.RandomState(0),
                mode="FAST_COMPILE")  # the gradient graph is under test; the C forward pass is tested above


def _gradient(cost_of, values, mode="FAST_COMPILE"):
    x = ot.dvector("x")
    return opkit.function([x], opkit.grad(cost_of(x), x), mode=mode)(np.asarray(values, dtype=float))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_prod_gradient_is_exact_with_one_zero_and_with_two(mode):
    np.testing.assert_array_equal(_gradient(ot.prod, [2.0, 0.0, 3.0], mode), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(_gradient(ot.prod, [0.0, 5.0, 0.0], mode), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(_gradient(ot.prod, [2.0, 4.0, 3.0], mode), [12.0, 6.0, 8.0])


def test_max_and_min_send_the_gradient_to_every_extreme_position_like_pytensor():
    np.testing.assert_array_equal(_gradient(ot.max, [1.0, 3.0, 2.0, 3.0]), [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(_gradient(ot.min, [1.0, 3.0, 2.0, 3.0]), [1.0, 0.0, 0.0, 0.0])


def test_mean_gradient_and_integer_inputs():
    np.testing.assert_array_equal(_gradient(ot.mean, [1.0, 3.0, 2.0, 3.0]), [0.25] * 4)
    x = ot.dmatrix("x")
    g = opkit.function([x], opkit.grad(ot.mean(x, axis=0).sum(), x), mode="FAST_COMPILE")(np.ones((4, 3)))
    np.testing.assert_array_equal(g, np.full((4, 3), 0.25))


def test_argmax_has_no_derivative_its_input_gets_zeros_like_pytensor():
    x = ot.dvector("x")
    cost = ot.sum(x * ot.argmax(x))
    g = opkit.function([x], opkit.grad(cost, x), mode="FAST_COMPILE")(np.array([1.0, 5.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])  # argmax contributes 0; x * 1 gives ones
    gz = opkit.function([x], opkit.grad(ot.sum(ot.argmax(x) * 1.0) + ot.sum(x * 0.0), x), mode="FAST_COMPILE")(
        np.ones(3))
    np.testing.assert_array_equal(gz, [0.0, 0.0, 0.0])


class TestReductionShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the C results' shapes are numpy's (tested above)

    def test_infer_shape(self):
        x = ot.dtensor3("x")
        values = self.rng.rand(2, 3, 4)
        specs = ((None, False), (1, True), ((0, 2), False), (-1, False))
        outputs = [getattr(ot, name)(x, axis=axis, keepdims=keepdims)
                   for i, name in enumerate(("sum", "prod", "max", "min", "mean", "argmax", "argmin"))
                   for axis, keepdims in (specs[i % 4], specs[(i + 1) % 4])]
        self._compile_and_check([x], outputs, [values], (ot.Sum, ot.Prod, ot.Max, ot.Min, ot.Mean, ot.Argmax))


def test_rop_of_sum_and_mean_and_a_clear_refusal_for_max():
    x, v = ot.dvector("x"), ot.dvector("v")
    f = opkit.function([x, v], [opkit.tensor.Rop(ot.sum(x), x, v), opkit.tensor.Rop(ot.mean(x), x, v)],
                       mode="FAST_COMPILE", on_unused_input="ignore")  # both are linear: x itself is unused
    np.testing.assert_allclose(f(np.ones(4), np.arange(4.0)), [6.0, 1.5])
    with pytest.raises(NotImplementedError, match=r"Max\{axis=None, keepdims=False\} has no R_op .*use Lop"):
        opkit.tensor.Rop(ot.max(x), x, v)


def test_every_path_gives_the_same_bits_whatever_the_layout():
    """Leading axes of a C-contiguous input are reduced 64 outputs at a time; other layouts one by one."""
    x = ot.dtensor3("x")
    f = opkit.function([x], [ot.sum(x, axis=0), ot.mean(x, axis=(0, 1)), ot.max(x, axis=0), ot.sum(x, axis=2)])
    rng = np.random.default_rng(9)
    values = rng.standard_normal((300, 2, 70)) * 10.0 ** rng.uniform(-6, 6, (300, 2, 70))
    values[17, 1, 3] = np.nan
    results = [f(layout(values, kind)) for kind in LAYOUTS]
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.tobytes() == b.tobytes()
    expected = [np.sum(values, axis=0), np.mean(values, axis=(0, 1)), np.max(values, axis=0), np.sum(values, axis=2)]
    for result, value in zip(results[0], expected):
        np.testing.assert_allclose(result, value, rtol=1e-9, atol=1e-9 * np.nanmax(np.abs(values)))

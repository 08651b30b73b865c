"""The standard unary elementwise ops against numpy: every dtype, C (FAST_RUN) and numpy (FAST_COMPILE), layouts."""

import numpy as np
import pytest
import scipy.special
from helpers.numeric import DTYPES, check_close, layouts, special_values
from helpers.modes import FAST_RUN_GRAPH

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.testing import InferShapeTester, verify_grad


def _sigmoid_reference(x):
    x = np.asarray(x)
    dtype = np.exp(np.zeros(0, x.dtype)).dtype
    return scipy.special.expit(x.astype(np.float64)).astype(dtype)


def _softplus_reference(x):
    x = np.asarray(x)
    dtype = np.exp(np.zeros(0, x.dtype)).dtype
    return np.logaddexp(0.0, x.astype(np.float64)).astype(dtype)


# name -> (numpy reference, exact in C?)
UNARY = {
    "abs": (np.abs, True), "sign": (np.sign, True), "tanh": (np.tanh, False), "sin": (np.sin, False),
    "cos": (np.cos, False), "log1p": (np.log1p, False), "expm1": (np.expm1, False),
    "sigmoid": (_sigmoid_reference, False), "softplus": (_softplus_reference, False),
    "floor": (np.floor, True), "ceil": (np.ceil, True), "round": (np.round, True),
}


def _refuses(name, dtype):
    """True where numpy refuses the op on the dtype (opkit must raise TypeError when building)."""
    if name in ("sigmoid", "softplus"):
        return np.dtype(dtype).kind == "c"
    try:
        UNARY[name][0](np.zeros(1, dtype))
    except TypeError:
        return True
    return False


def cases(dtypes):
    return [(name, dtype) for dtype in dtypes for name in UNARY if not _refuses(name, dtype)]


# The dtypes whose C (FAST_RUN) the default run compiles here: bool, int16 (a signed integer; float32 results),
# uint64 (an unsigned integer; float64 results), complex64 (perform). FAST_COMPILE runs every dtype. The other
# dtypes' C is soak ("rest"): the default run compiles these ops on int8, float32 and float64 (and runs float16 and
# complex128) in the same layouts and modes in tests/tensor/test_language_elementwise.py, and int32, int64, uint8,
# uint16 and uint32 are the same C as int16 or uint64 on another integer type.
C_DEFAULT = ("bool", "int16", "uint64", "complex64")
PARTS = {"default": {"FAST_RUN": C_DEFAULT, "FAST_COMPILE": DTYPES},
         "rest": {"FAST_RUN": tuple(d for d in DTYPES if d not in C_DEFAULT)}}
_FUNCTIONS = {}


def unary_function(mode, dtypes):
    """One function computing every (op, dtype) case of `dtypes`: few modules to compile."""
    if (mode, dtypes) not in _FUNCTIONS:
        inputs = {dtype: ot.tensor(dtype, (None, None), name=dtype) for dtype in dtypes}
        outputs = [getattr(ot, name)(inputs[dtype]) for name, dtype in cases(dtypes)]
        _FUNCTIONS[(mode, dtypes)] = opkit.function(list(inputs.values()), outputs, mode=mode)
    return _FUNCTIONS[(mode, dtypes)]


@pytest.mark.parametrize("layout", ["c", "fortran", "strided", "reversed", "empty"])
@pytest.mark.parametrize("part", ["default", pytest.param("rest", marks=pytest.mark.soak)])
def test_unary_ops_match_numpy_on_every_dtype(part, layout):
    for mode, dtypes in PARTS[part].items():
        arrays = [layouts(special_values(dtype))[layout] for dtype in dtypes]
        by_dtype = dict(zip(dtypes, arrays))
        values = unary_function(mode, dtypes)(*arrays)
        for k, (name, dtype) in enumerate(cases(dtypes)):
            reference, exact_in_c = UNARY[name]
            x = by_dtype[dtype]
            with np.errstate(all="ignore"):
                expected = np.asarray(reference(x))
            exact = exact_in_c if name not in ("sigmoid", "softplus") else False
            if mode == "FAST_COMPILE" and name not in ("sigmoid", "softplus"):
                exact = True  # perform is numpy itself
            check_close(values[k], expected, exact, what=f"{name}({dtype}, {layout}) {mode}")


def test_the_c_code_ran_for_every_c_dtype():
    """FAST_RUN's graph of every case (FAST_RUN's rewrites with the Python linker: its nodes, compiled or not)."""
    inputs = {dtype: ot.tensor(dtype, (None, None), name=dtype) for dtype in DTYPES}
    outputs = [getattr(ot, name)(inputs[dtype]) for name, dtype in cases(DTYPES)]
    f = opkit.function(list(inputs.values()), outputs, mode=FAST_RUN_GRAPH)
    nodes = f.maker.fgraph.toposort()
    with_c = {(str(n.op), n.inputs[0].dtype) for n in nodes if op_has_c(n)}
    for name in UNARY:
        for dtype in ("float32", "float64"):
            assert (name, dtype) in with_c, (name, dtype)
    for name in ("abs", "sign", "floor", "ceil", "round"):
        for dtype in ("int8", "int64", "uint8", "uint64"):
            assert (name, dtype) in with_c, (name, dtype)
    assert not any(dtype in ("float16", "complex64", "complex128") for _, dtype in with_c)


@pytest.mark.parametrize("name, dtype, expected", [
    ("floor", "int8", "int8"), ("ceil", "uint16", "uint16"), ("floor", "bool", "bool"),
    ("round", "int32", "int32"), ("round", "bool", "float16"), ("sign", "uint8", "uint8"),
    ("abs", "int64", "int64"), ("abs", "complex64", "float32"), ("sigmoid", "int8", "float16"),
    ("softplus", "int32", "float64"), ("sigmoid", "bool", "float16"), ("tanh", "uint64", "float64"),
])
def test_output_dtypes_are_numpys(name, dtype, expected):
    assert getattr(ot, name)(ot.tensor(dtype, (None,))).dtype == expected


def test_abs_of_the_smallest_integer_wraps_as_in_numpy():
    x = ot.tensor("int8", (None,), name="x")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([x], abs(x), mode=mode)
        np.testing.assert_array_equal(f(np.array([-128, -1, 127], np.int8)), np.array([-128, 1, 127], np.int8))


def test_round_is_half_to_even():
    x = ot.dvector("x")
    f = opkit.function([x], ot.round(x))
    np.testing.assert_array_equal(f(np.array([0.5, 1.5, 2.5, -0.5, -1.5])), [0.0, 2.0, 2.0, -0.0, -2.0])


@pytest.mark.parametrize("name, dtype", [("sign", "bool"), ("floor", "complex128"), ("sigmoid", "complex64"),
                                         ("softplus", "complex128")])
def test_numpy_refusals_raise_type_error_when_building(name, dtype):
    with pytest.raises(TypeError, match=f"{name}.*(complex|bool)"):
        getattr(ot, name)(ot.tensor(dtype, (None,)))


def test_unary_ops_fuse_into_one_c_loop():
    x = ot.dvector("x")
    out = ot.sigmoid(ot.tanh(x)) + ot.softplus(ot.sin(x)) * ot.floor(ot.cos(x)) - ot.abs(ot.expm1(ot.log1p(x)))
    f = opkit.function([x], out)
    nodes = f.maker.fgraph.toposort()
    assert len(nodes) == 1 and str(nodes[0].op).startswith("Fused") and op_has_c(nodes[0])
    value = np.linspace(-0.9, 3, 11)
    expected = (_sigmoid_reference(np.tanh(value)) + _softplus_reference(np.sin(value)) * np.floor(np.cos(value))
                - np.abs(np.expm1(np.log1p(value))))
    np.testing.assert_allclose(f(value), expected, rtol=1e-13)


@pytest.mark.parametrize("name, point", [
    ("abs", [-1.5, 0.3, 2.0]), ("tanh", [-1.0, 0.2, 3.0]), ("sin", [-1.0, 0.2, 3.0]), ("cos", [-1.0, 0.2, 3.0]),
    ("log1p", [-0.5, 0.2, 3.0]), ("expm1", [-1.0, 0.2, 2.0]), ("sigmoid", [-5.0, 0.2, 3.0]),
    ("softplus", [-5.0, 0.2, 30.0]), ("floor", [-1.5, 0.2, 2.7]), ("ceil", [-1.5, 0.2, 2.7]),
    ("round", [-1.2, 0.2, 2.7]), ("sign", [-1.5, 0.2, 2.7]),
])
def test_unary_gradients(name, point):
    verify_grad(getattr(ot, name), [np.array(point)], mode="FAST_COMPILE")


def test_gradient_of_an_integer_input_is_float_zeros():
    x = ot.lvector("x")
    g = opkit.grad(ot.sum(ot.abs(x) * 1.0), x)
    np.testing.assert_array_equal(g.eval({x: np.array([1, -2])}), [0.0, 0.0])


class TestUnaryShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the ops' C results are numpy's (tested above)

    def test_infer_shape(self):
        x = ot.dmatrix("x")
        outputs = [getattr(ot, name)(x) for name in UNARY]
        self._compile_and_check([x], outputs, [self.rng.rand(3, 4)], opkit.tensor.Elemwise)


def test_abs_of_complex_fused_with_real_ops_keeps_the_modulus():
    """Found by the differential test: a fused program cast abs's complex operand to float64 first."""
    x, y = ot.tensor("float16", (None,), name="x"), ot.tensor("complex128", (None,), name="y")
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = opkit.function([x, y], ot.abs(y) * ot.sign(ot.cos(x)), mode=mode)
        np.testing.assert_array_equal(f(np.zeros(1, "f2"), np.array([3 + 4j])), [5.0], strict=True)

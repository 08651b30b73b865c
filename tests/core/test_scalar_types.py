"""opkit.scalar: ScalarType variables as op inputs, outputs and params fields, in every linker."""

import numpy as np
import pytest

import opkit
import opkit.scalar as os_
import opkit.tensor as ot
from opkit import Apply, Op, ParamsType

LINKERS = ["py", "cop", "c"]


class AffineScalar(Op):
    """z = 2 * x + 1 on a scalar of any real dtype (C: a variable of the numpy C type)."""

    __props__ = ()

    def make_node(self, x):
        x = os_.as_scalar(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = node.outputs[0].type.filter(2 * inputs[0] + 1, allow_downcast=True)

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = 2 * {inputs[0]} + 1;"

    def c_code_cache_version(self):
        return (1,)


class CopyScalar(Op):
    """z = x through C for every dtype (float16 and complex too: a plain copy of the C value)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]};"

    def c_code_cache_version(self):
        return (1,)


ROUND_TRIP_DTYPES = ["int8", "int32", "int64", "uint16", "float32", "float64"]


@pytest.mark.parametrize("linker", LINKERS)
def test_a_scalar_input_and_output_round_trip(linker):
    """One function of a node per dtype: one module for the six dtypes."""
    xs = [os_.ScalarType(dtype)(f"x_{dtype}") for dtype in ROUND_TRIP_DTYPES]
    f = opkit.function(xs, [AffineScalar()(x) for x in xs], mode=opkit.Mode(linker=linker, optimizer=None))
    for values in ([3] * len(xs), [np.dtype(dtype).type(5) for dtype in ROUND_TRIP_DTYPES], [0] * len(xs)):
        for dtype, value, result in zip(ROUND_TRIP_DTYPES, values, f(*values)):
            assert type(result) is np.dtype(dtype).type, (type(result), dtype)
            assert result == 2 * value + 1


def test_every_dtype_round_trips_through_c():
    """One function of a copy per dtype: one module for every dtype."""
    xs = [os_.ScalarType(dtype)(f"x_{dtype}") for dtype in os_.DTYPES]
    values = [np.dtype(dtype).type(1.5 - 2j if dtype.startswith("complex") else 1 if dtype == "bool" else 3)
              for dtype in os_.DTYPES]
    f = opkit.function(xs, [CopyScalar()(x) for x in xs], mode=opkit.Mode(linker="c", optimizer=None))
    for dtype, value, result in zip(os_.DTYPES, values, f(*values)):
        assert type(result) is np.dtype(dtype).type and result == value, (dtype, result)


def test_scalar_intermediates_and_debugmode():
    x = os_.float64("x")
    out = AffineScalar()(AffineScalar()(x))
    for mode in ("FAST_RUN", "DebugMode", "FAST_COMPILE"):
        assert opkit.function([x], out, mode=mode)(1.5) == 2 * (2 * 1.5 + 1) + 1


def test_scalar_filter_refuses_what_does_not_fit():
    assert os_.int8.filter(np.int64(5)) == 5 and type(os_.int8.filter(5)) is np.int8
    with pytest.raises(TypeError, match="does not fit a int8 scalar"):
        os_.int8.filter(300)
    with pytest.raises(TypeError, match="does not fit a int32 scalar exactly"):
        os_.int32.filter(1.5)
    with pytest.raises(TypeError, match="expected a number for a float64 scalar, got str"):
        os_.float64.filter("1.0")
    with pytest.raises(TypeError, match="expected a numpy.float64 scalar"):
        os_.float64.filter(1.0, strict=True)
    x = os_.int32("x")
    f = opkit.function([x], AffineScalar()(x), mode=opkit.Mode(linker="c", optimizer=None))
    with pytest.raises(TypeError, match="bad argument 'x'.*does not fit a int32 scalar exactly"):
        f(2.5)


def test_c_extract_refuses_an_inexact_value_when_trusted():
    x = os_.int32("x")
    f = opkit.function([x], AffineScalar()(x), mode=opkit.Mode(linker="c", optimizer=None))
    f.trust_input = True
    assert f(np.int32(4)) == 9 and f(4) == 9
    with pytest.raises(TypeError, match="2.5 does not fit a int32 scalar exactly"):
        f(2.5)
    with pytest.raises(TypeError, match="expected a number or numpy scalar for a int32 scalar, got str"):
        f("4")


def test_as_scalar_and_upcast():
    assert os_.as_scalar(2.5).type == os_.float64 and os_.as_scalar(True).type == os_.bool
    assert os_.as_scalar(np.int16(3)).type == os_.int16
    assert os_.upcast("int8", "float32") == "float32"
    with pytest.raises(TypeError, match="not a ScalarType"):
        os_.as_scalar(ot.dvector())
    with pytest.raises(TypeError, match="unsupported dtype 'float128'"):
        os_.ScalarType("float128")


class ScaleBy(Op):
    """z = x * factor + offset, with a float32 and an int64 params field."""

    __props__ = ("factor", "offset")
    params_type = ParamsType(factor=os_.float32, offset=os_.int64)

    def __init__(self, factor, offset):
        self.factor, self.offset = factor, offset

    def make_node(self, x):
        return Apply(self, [x], [os_.float64()])

    def perform(self, node, inputs, output_storage, params):
        assert type(params.factor) is np.float32 and type(params.offset) is np.int64
        output_storage[0][0] = np.float64(inputs[0] * np.float64(params.factor) + params.offset)

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * (double){sub['params']}->factor + {sub['params']}->offset;"

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("linker", LINKERS)
def test_a_scalar_params_field_carries_numpy_scalars_and_python_numbers(linker):
    x = os_.float64("x")
    mode = opkit.Mode(linker=linker, optimizer=None)
    for factor, offset in ((2.5, 3), (np.float32(0.25), np.int64(-7)), (np.float64(4.0), np.int8(1)), (1, True)):
        f = opkit.function([x], ScaleBy(factor, offset)(x), mode=mode)
        assert f(2.0) == 2.0 * float(np.float32(factor)) + int(offset)


def test_a_params_field_value_that_does_not_fit_is_an_error():
    x = os_.float64("x")
    with pytest.raises(TypeError, match="params field 'offset': 2.5 does not fit a int64 scalar exactly"):
        opkit.function([x], ScaleBy(1.0, 2.5)(x), mode=opkit.Mode(linker="c", optimizer=None))

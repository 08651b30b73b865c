"""What numpy accepts is accepted: equivalent dtypes, unaligned, byte-swapped and read-only arrays.

Every case runs real compiled C (FAST_RUN's whole-graph linker 'c', the per-node
linker 'cop') and Python perform (FAST_COMPILE), checked (the default) and, for
arrays the C can take as they are, trusted; results are compared with numpy.
Arrays whose subclass carries meaning opkit would drop (np.ma masks, np.matrix)
are refused with a TypeError saying to pass np.asarray(...); overflow when an
input is narrowed to float32 warns as numpy's cast does.
"""

import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot

MODES = {
    "FAST_RUN": "FAST_RUN",
    "cop": opkit.Mode(linker="cop"),
    "FAST_COMPILE": "FAST_COMPILE",
}
C_MODES = ("FAST_RUN", "cop")


def _unaligned_struct_field(dtype, values):
    """A packed structured field: every element sits at an odd address."""
    packed = np.zeros(len(values), dtype=np.dtype([("a", "i1"), ("b", dtype)], align=False))
    packed["b"] = values
    field = packed["b"]
    assert not field.flags.aligned
    return field


def _unaligned_frombuffer(dtype, values):
    """np.frombuffer(bytes, offset=1): unaligned and read-only."""
    data = np.asarray(values, dtype=dtype)
    array = np.frombuffer(b"\0" + data.tobytes(), dtype=dtype, offset=1)
    assert not array.flags.aligned and not array.flags.writeable
    return array


def _read_only(dtype, values):
    array = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


def _byteswapped(dtype, values):
    array = np.asarray(values, dtype=dtype).astype(np.dtype(dtype).newbyteorder(">" if np.little_endian else "<"))
    assert not array.dtype.isnative
    return array


def _longlong(dtype, values):
    array = np.asarray(values, dtype=np.longlong)
    assert array.dtype.num == np.dtype(np.longlong).num
    return array


FLOAT_CASES = {
    "unaligned-struct-field": _unaligned_struct_field,
    "unaligned-frombuffer": _unaligned_frombuffer,
    "byteswapped": _byteswapped,
    "read-only": _read_only,
}
INT_CASES = dict(FLOAT_CASES, longlong=_longlong)
# What the compiled C can take without a copy: aligned, native order (typenum may differ but be equivalent).
TRUSTABLE = {"read-only", "longlong"}

VALUES = [0.5, -1.25, 3.0, 7.5, -2.0]


def checked_and_trusted(cases=(None,), trustable=lambda case: False):
    """Return (case, mode, trust) params: trusted calls only where they get a conversion (C) or need none.

    A trusted call into Python perform gets the array as given, so that pair is not a case.
    """
    return [pytest.param(*([case] if case is not None else []), mode, trust,
                         id="-".join([*([case] if case is not None else []), mode,
                                      "trusted" if trust else "checked"]))
            for case in cases for mode in MODES for trust in (False, True)
            if not trust or mode in C_MODES or trustable(case)]
INT_VALUES = [3, -1, 4, 1 << 40, -(1 << 35)]


def _compile(inputs, output, mode, trust):
    f = opkit.function(inputs, output, mode=MODES[mode])
    f.trust_input = trust
    return f


@pytest.mark.parametrize("case, mode, trust", checked_and_trusted(FLOAT_CASES, TRUSTABLE.__contains__))
def test_float64_vectors_are_converted_and_equal_numpy(case, mode, trust):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = _compile([x, y], ot.exp(x) * y + 1.0, mode, trust)
    a, b = FLOAT_CASES[case]("float64", VALUES), np.linspace(-1.0, 1.0, 5)
    expected = np.exp(np.asarray(a, dtype="float64")) * b + 1.0
    for _ in range(2):  # the second call reuses storage
        result = f(a, b)
        np.testing.assert_allclose(result, expected, rtol=1e-15)
        assert result.dtype == np.float64 and result.dtype.isnative
    np.testing.assert_array_equal(np.asarray(a, dtype="float64"), VALUES)  # the input is untouched


@pytest.mark.parametrize("case, mode, trust", checked_and_trusted(INT_CASES, TRUSTABLE.__contains__))
def test_int64_vectors_are_converted_and_equal_numpy(case, mode, trust):
    x = ot.lvector("x")
    f = _compile([x], x * 3 + x, mode, trust)
    a = INT_CASES[case]("int64", INT_VALUES)
    expected = np.asarray(a, dtype="int64") * 3 + np.asarray(a, dtype="int64")
    result = f(a)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == np.int64


@pytest.mark.parametrize("mode, trust", checked_and_trusted())
def test_byteswapped_transposed_matrix(mode, trust):
    x = ot.dmatrix("x")
    f = _compile([x], (x * 2.0).sum(axis=0), mode, trust)
    a = _byteswapped("float64", np.arange(12.0).reshape(3, 4)).T
    np.testing.assert_allclose(f(a), (np.asarray(a, dtype="float64") * 2.0).sum(axis=0))


class TypenumProbe(opkit.Op):
    """Copy an int64 vector; the C code fails unless the array it gets is tagged NPY_INT64."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.array(inputs[0], dtype="int64")

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,), fail = inputs, outputs, sub["fail"]
        return f"""
        if (PyArray_TYPE({x}) != NPY_INT64) {{
            PyErr_Format(PyExc_AssertionError, "typenum %d, not NPY_INT64", PyArray_TYPE({x}));
            {fail}
        }}
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_CORDER);
        if (!{z}) {fail}
        """

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize("trust", [False, True], ids=["checked", "trusted"])
@pytest.mark.parametrize("mode", C_MODES)
def test_an_equivalent_typenum_reaches_c_code_as_the_declared_one(mode, trust):
    x = ot.lvector("x")
    f = _compile([x], TypenumProbe()(x) + 1, mode, trust)
    a = np.arange(5, dtype=np.longlong)
    np.testing.assert_array_equal(f(a), np.arange(5) + 1)


@pytest.mark.parametrize("mode", C_MODES)
def test_the_c_fast_path_takes_equivalent_typenums(mode):
    """The call goes through C (no Python filter) for np.longlong into an int64 input."""
    x = ot.lvector("x")
    f = opkit.function([x], x + 1, mode=MODES[mode])
    assert type(f).__name__ == "Function"  # the C call path
    calls = []
    slow = type(f)._slow_call

    def counting(self, *args, **kwargs):
        calls.append(args)
        return slow(self, *args, **kwargs)

    f._configure(f._runner, counting, f._wrap, opkit.link.fastcall.input_signature(f._types))
    np.testing.assert_array_equal(f(np.arange(3, dtype=np.longlong)), [1, 2, 3])
    assert calls == []
    np.testing.assert_array_equal(f(_byteswapped("int64", [1, 2, 3])), [2, 3, 4])
    assert len(calls) == 1  # sent to Python for conversion


# -- a Python op's output that is unaligned, byte-swapped or equivalent-typed feeds C ---------------

class OddOutput(opkit.Op):
    """Python-only op returning its input as an unaligned, byte-swapped or np.longlong array."""

    __props__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].dtype
        value = np.array(inputs[0], dtype=dtype)
        if self.kind == "masked":
            output_storage[0][0] = np.ma.array(value, mask=np.arange(value.size) % 2 == 0)
            return
        maker = {"unaligned": _unaligned_struct_field, "byteswapped": _byteswapped, "longlong": _longlong,
                 "unaligned-frombuffer": _unaligned_frombuffer}[self.kind]
        output_storage[0][0] = maker(dtype, value)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", ["unaligned", "byteswapped", "unaligned-frombuffer"])
def test_a_python_op_returning_unaligned_or_swapped_arrays_feeds_c(kind, mode):
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(OddOutput(kind)(x)) * 2.0 + x, mode=MODES[mode])
    a = np.array(VALUES)
    for _ in range(2):
        np.testing.assert_allclose(f(a), np.exp(a) * 2.0 + a, rtol=1e-15)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", ["unaligned", "byteswapped", "longlong"])
def test_a_python_op_returning_odd_int64_arrays_feeds_c(kind, mode):
    x = ot.lvector("x")
    f = opkit.function([x], TypenumProbe()(OddOutput(kind)(x)) * 2 + x, mode=MODES[mode])
    a = np.array(INT_VALUES)
    np.testing.assert_array_equal(f(a), a * 2 + a)


@pytest.mark.parametrize("mode", C_MODES)
def test_a_python_op_returning_a_masked_array_into_c_raises(mode):
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(OddOutput("masked")(x)), mode=MODES[mode])
    with pytest.raises(TypeError, match=r"np\.asarray"):
        f(np.array(VALUES))


# -- subclasses ---------------------------------------------------------------------------------

class Tagged(np.ndarray):
    """An ndarray subclass that only adds an attribute."""


@pytest.mark.parametrize("mode, trust", checked_and_trusted())
@pytest.mark.parametrize("value, what", [
    (np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False]), "mask"),
    (np.ma.array([1.0, 2.0, 3.0]), "mask"),  # no element masked: still refused, the type says it may be
    (np.ma.masked_invalid([1.0, np.nan, 3.0]), "mask"),
    (np.arange(3.0).view(Tagged), "Tagged"),
], ids=["masked", "masked-none", "masked-invalid", "plain-subclass"])
def test_subclasses_that_would_lose_meaning_raise(value, what, mode, trust):
    x = ot.dvector("x")
    f = _compile([x], x * 2.0, mode, trust)
    with pytest.raises(TypeError, match=r"np\.asarray\(") as excinfo:
        f(value)
    assert what in str(excinfo.value)
    if not trust:
        assert "'x' (position 0)" in str(excinfo.value)
    np.testing.assert_allclose(f(np.asarray(value)) if not trust else f(np.asarray(value).copy()),
                               np.asarray(value) * 2.0)


@pytest.mark.parametrize("mode", list(MODES))
def test_np_matrix_raises(mode):
    x = ot.dmatrix("x")
    f = opkit.function([x], x * 2.0, mode=MODES[mode])
    with pytest.raises(TypeError, match=r"(?s)numpy\.matrix.*np\.asarray\("), warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        f(np.matrix([[1.0, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("mode", list(MODES))
def test_memmap_is_accepted(mode, tmp_path):
    x = ot.dvector("x")
    f = opkit.function([x], x * 2.0, mode=MODES[mode])
    mapped = np.memmap(tmp_path / "data.bin", dtype="float64", mode="w+", shape=(4,))
    mapped[:] = [1.0, 2.0, 3.0, 4.0]
    result = f(mapped)
    np.testing.assert_array_equal(result, [2.0, 4.0, 6.0, 8.0])
    assert type(result) is np.ndarray


@pytest.mark.parametrize("mode", list(MODES))
def test_wrong_dtypes_still_raise_naming_the_argument(mode):
    x = ot.lvector("x")
    f = opkit.function([x], x + 1, mode=MODES[mode])
    with pytest.raises(TypeError, match=r"bad argument 'x' \(position 0\).*casting float64 to int64"):
        f(np.ones(3))
    with pytest.raises(TypeError, match=r"bad argument 'x' \(position 0\).*casting uint64 to int64"):
        f(np.ones(3, dtype=np.uint64))
    with pytest.raises(TypeError, match=r"bad argument 'x' \(position 0\)"):
        f(_byteswapped("float64", [1.0]))


# -- overflow when narrowing to float32 --------------------------------------------------------

@pytest.mark.parametrize("mode", list(MODES))
def test_overflow_into_float32_warns_like_numpy(mode):
    s, v = ot.fscalar("s"), ot.fvector("v")
    f = opkit.function([s, v], v * s, mode=MODES[mode])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(f(1.5, [1.0, 2.0]), [1.5, 3.0])  # no warning when nothing overflows
    with pytest.warns(RuntimeWarning, match="overflow"):
        result = f(1e300, [1.0, 2.0])
    assert np.isinf(result).all()
    with pytest.warns(RuntimeWarning, match="overflow"):
        f(1.0, [1e300, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(np.float32(3.0), np.array([np.inf], dtype=np.float64).tolist())  # inf stays inf: not an overflow


def test_float64_array_into_float32_overflow_warns_when_downcast_is_allowed():
    ftype = ot.TensorType("float32", (None,))
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert np.isinf(ftype.filter(np.array([1e300, 1.0]), allow_downcast=True)[0])
    with pytest.raises(TypeError, match="would lose information"):
        ftype.filter(np.array([1e300, 1.0]))

"""Alloc, MakeVector and ResolvedShape in C: the same results and errors as their perform and as numpy."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.shapes.alloc import Alloc, alloc
from opkit.core.tensor.shapes.reshape import ResolvedShape
from opkit.core.tensor.shapes.shape_ops import MakeVector, make_vector
from opkit.core.tensor.types.type import TensorType

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
MODES = {"c": opkit.Mode(linker="c", optimizer=None), "py": opkit.Mode(linker="py", optimizer=None),
         "FAST_RUN": "FAST_RUN", "FAST_COMPILE": "FAST_COMPILE", "DebugMode": "DebugMode"}
# DebugMode compiles a module per node (17) to check the C that "c" and FAST_RUN run against the perform that "py"
# runs, each compared with numpy here: `-m soak`
MODE_NAMES = [*(name for name in MODES if name != "DebugMode"), pytest.param("DebugMode", marks=pytest.mark.soak)]


def _values(rows):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal(rows) * 5).astype(d) for d in DTYPES]


@pytest.fixture(scope="module")
def functions():
    """One function per mode, compiled when a test first asks for it: every dtype broadcast by Alloc, MakeVector of
    every int dtype, ResolvedShape."""
    values = [TensorType(d, (None,))(f"v_{d}") for d in DTYPES]
    a, b = ot.lscalar("a"), ot.lscalar("b")
    ints = [TensorType(d, ())(f"i_{d}") for d in INT_DTYPES]
    shape = ot.lvector("shape")
    outputs = [alloc(v, a, b) for v in values] + [make_vector(*ints), make_vector(),
                                                   ResolvedShape(2)(shape, a, b)]

    @functools.cache
    def compiled(name):
        return opkit.function([*values, a, b, *ints, shape], outputs, mode=MODES[name])

    return compiled


def test_the_c_linker_runs_them_in_c(functions):
    nodes = functions("c").maker.fgraph.toposort()
    ops = {type(n.op) for n in nodes}
    assert {Alloc, MakeVector, ResolvedShape} <= ops
    assert all(op_has_c(n) for n in nodes if isinstance(n.op, (Alloc, MakeVector, ResolvedShape)))


@pytest.mark.parametrize("name", MODE_NAMES)
@pytest.mark.parametrize("a, b, rows", [(2, 3, 3), (4, 3, 1), (0, 3, 3), (2, 0, 1), (3, 0, 0), (0, 0, 1)])
def test_results_match_numpy(functions, name, a, b, rows):
    values = _values(rows)
    ints = [np.asarray(7 - k, dtype=d) for k, d in enumerate(INT_DTYPES)]
    shape = np.asarray([-1, b], dtype="int64") if b else np.asarray([a, b], dtype="int64")
    results = functions(name)(*values, a, b, *ints, shape)
    for value, result in zip(values, results):
        np.testing.assert_array_equal(result, np.broadcast_to(value, (a, b)), err_msg=f"{name} {value.dtype}",
                                      strict=True)
        assert result.flags.writeable and result.flags.owndata
    np.testing.assert_array_equal(results[len(DTYPES)], np.arange(7, 0, -1, dtype="int64"), strict=True)
    np.testing.assert_array_equal(results[len(DTYPES) + 1], np.zeros(0, dtype="int64"), strict=True)
    np.testing.assert_array_equal(results[-1], np.asarray([a, b], dtype="int64"), strict=True)


def _call(f, value, a, b, shape=(-1,)):
    values = [value if d == "float64" else np.zeros(1, dtype=d) for d in DTYPES]
    ints = [np.asarray(1, dtype=d) for d in INT_DTYPES]
    return f(*values, a, b, *ints, np.asarray(shape, dtype="int64"))


@pytest.mark.parametrize("name", MODE_NAMES)
def test_alloc_errors(functions, name):
    f = functions(name)
    with pytest.raises(ValueError, match=r"^alloc: cannot broadcast a value of shape \(3,\) to the shape \(2, 4\): "
                       r"numpy's broadcasting needs each of its lengths to be 1 or the target's, counted from "
                       r"the last axis"):
        _call(f, np.zeros(3), 2, 4, (2, 4))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        _call(f, np.zeros(1), -1, 4, (-1, 4))


@pytest.mark.parametrize("name", MODE_NAMES)
def test_resolved_shape_errors(functions, name):
    f = functions(name)
    for shape, text in [((5, -1), r"\(5, -1\)"), ((-1, -1), r"\(-1, -1\)"), ((3, -2), r"\(3, -2\)"),
                        ((2, 3, 2), r"\(2, 3, 2\)")]:
        with pytest.raises(ValueError, match=r"^reshape: cannot reshape an array of shape \(2, 3\) \(6 elements\) "
                           rf"into shape {text}: the new shape must hold the same number of elements"):
            _call(f, np.zeros(3), 2, 3, shape)


@pytest.mark.parametrize("name", ["c", "FAST_COMPILE"])
def test_non_integer_shapes_are_refused(functions, name):
    f = functions(name)
    with pytest.raises(TypeError):
        _call(f, np.zeros(3), 2.5, 3)
    with pytest.raises(TypeError, match="Alloc dimension 0 must be an integer scalar"):
        alloc(ot.dvector("v"), ot.dscalar("d"))


@settings(max_examples=40, deadline=None)
@given(a=st.integers(-1, 4), b=st.integers(0, 4), rows=st.integers(0, 5))
def test_alloc_is_numpy_broadcast_to(functions, a, b, rows):
    value = np.arange(rows, dtype="float64")
    try:
        want = np.broadcast_to(value, (a, b)).copy()
    except ValueError:
        want = None
    for name in ("c", "py"):
        if want is None:
            with pytest.raises(ValueError, match="negative dimensions|alloc: cannot broadcast|reshape: cannot reshape"):
                _call(functions(name), value, a, b, (a, b))
        else:
            result = _call(functions(name), value, a, b, (a, b))
            np.testing.assert_array_equal(result[DTYPES.index("float64")], want, strict=True)


def test_uint64_lengths_stay_in_python():
    """uint64 values above int64's range: perform raises numpy's error, so those nodes keep no C."""
    u = TensorType("uint64", ())("u")
    assert not op_has_c(alloc(ot.dvector("v"), u).owner)
    assert not op_has_c(make_vector(u).owner)
    assert op_has_c(alloc(ot.dvector("v"), ot.iscalar("i")).owner)
    f = opkit.function([u], [make_vector(u), alloc(np.float32(1.5), u)])
    vector, filled = f(np.uint64(3))
    np.testing.assert_array_equal(vector, np.asarray([3], dtype="int64"), strict=True)
    np.testing.assert_array_equal(filled, np.full(3, 1.5, dtype="float32"), strict=True)

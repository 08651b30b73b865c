"""set_subtensor / inc_subtensor (PyTensor's IncSubtensor, basic indexing) against numpy's r[idx] = y, r[idx] += y.

The oracle: ``r = x.copy(); r[idx] = y`` (or ``+= y``). Each path runs: FAST_RUN (the op's C),
FAST_COMPILE (its perform), the eager ``op.compute``, and DebugMode (C against perform, and the
op's view and destroy maps).
"""

import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.shapes.inc_subtensor import IncSubtensor
from opkit.testing import InferShapeTester, verify_grad
from helpers.modes import FAST_RUN_GRAPH

MODES = ["FAST_RUN", "FAST_COMPILE"]
ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "float32", "float64", "complex64", "complex128"]


def numpy_result(x, index, y, set_instead_of_inc):
    result = x.copy()
    if set_instead_of_inc:
        result[index] = y
    else:
        result[index] += y
    return result


def values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -50), min(info.max, 50), size=shape, endpoint=True).astype(dtype)
    data = rng.standard_normal(shape) * 10
    if np.dtype(dtype).kind == "c":
        data = data + 1j * rng.standard_normal(shape)
    return data.astype(dtype)


def assert_same(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


# -- index forms and shapes, drawn: symbolic index values, so one compiled function serves many draws ---------

_FUNCTIONS = {}


def compiled(mode, kinds, ndim, y_ndim, set_instead_of_inc):
    """A function (x, y, *index scalars) -> set/inc_subtensor(x[index], y); `kinds`: 'int' or 'slice' per axis."""
    key = (mode, kinds, ndim, y_ndim, set_instead_of_inc)
    if key not in _FUNCTIONS:
        x, y = ot.tensor("float64", shape=(None,) * ndim), ot.tensor("float64", shape=(None,) * y_ndim)
        scalars, index = [], []
        for kind in kinds:
            parts = [ot.lscalar() for _ in range(1 if kind == "int" else 3)]
            scalars += parts
            index.append(parts[0] if kind == "int" else slice(*parts))
        target = x[tuple(index)]
        out = ot.set_subtensor(target, y) if set_instead_of_inc else ot.inc_subtensor(target, y)
        _FUNCTIONS[key] = opkit.function([x, y, *scalars], out, mode=mode)
    return _FUNCTIONS[key]


@st.composite
def cases(draw):
    """(x, kinds, index values, index, y, set?): an in-range basic index and a y that broadcasts to x[index]."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    n_axes = draw(st.integers(1, ndim))
    kinds, flat, index = [], [], []
    for axis in range(n_axes):
        if shape[axis] > 0 and draw(st.booleans()):
            i = draw(st.integers(-shape[axis], shape[axis] - 1))
            kinds.append("int")
            flat.append(i)
            index.append(i)
        else:  # out-of-range bounds are clamped as Python's slices clamp them
            start, stop = draw(st.integers(-7, 7)), draw(st.integers(-7, 7))
            step = draw(st.integers(-3, 3).filter(bool))
            kinds.append("slice")
            flat += [start, stop, step]
            index.append(slice(start, stop, step))
    x = values("float64", shape, draw(st.integers(0, 9)))
    selected = x[tuple(index)].shape
    y_ndim = draw(st.integers(0, len(selected)))
    y_shape = tuple(1 if draw(st.booleans()) else d for d in selected[len(selected) - y_ndim:])
    y = values("float64", y_shape, 11)
    return x, tuple(kinds), flat, tuple(index), y, draw(st.booleans())


def check_drawn_case(mode, case):
    x, kinds, flat, index, y, set_instead_of_inc = case
    before = x.copy()
    f = compiled(mode, kinds, x.ndim, y.ndim, set_instead_of_inc)
    got = f(x, y, *flat)
    assert_same(got, numpy_result(x, index, y, set_instead_of_inc))
    assert_same(x, before)  # never the caller's x
    assert not np.shares_memory(got, x)


# 25 examples, but 12 in FAST_RUN's default run: each new index kind, rank or set/inc is a module of its own there
# (soak draws its 25; FAST_COMPILE compiles nothing)
@pytest.mark.parametrize("mode, examples", [pytest.param("FAST_RUN", 12, id="FAST_RUN"),
                                            pytest.param("FAST_RUN", 25, id="FAST_RUN-25", marks=pytest.mark.soak),
                                            pytest.param("FAST_COMPILE", 25, id="FAST_COMPILE")])
def test_matches_numpy_on_drawn_indices_and_shapes(mode, examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case=cases())
    def drawn(case):
        check_drawn_case(mode, case)

    drawn()


STATIC_INDICES = [(1,), (slice(None, None, -2),), (slice(1, None), -1), (slice(-100, 100),), (slice(5, 1),), (0, 1)]
STATIC_CASES = [(index, set_instead_of_inc) for set_instead_of_inc in (True, False) for index in STATIC_INDICES]


@pytest.fixture(scope="module")
def static_functions():
    """(x's value, each case's y value and output, {mode: function}): every case of STATIC_CASES is an output of one
    function per mode, compiled when a case first asks for it (in FAST_RUN one module, not twelve: CI time)."""
    x = ot.dmatrix("x")
    xv = values("float64", (3, 4), 1)
    ys, yvs, outs = [], [], []
    for index, set_instead_of_inc in STATIC_CASES:
        selected = xv[index].shape
        ys.append(ot.tensor("float64", shape=(None,) * len(selected[-1:])))
        yvs.append(values("float64", selected[-1:], 2))
        build = ot.set_subtensor if set_instead_of_inc else ot.inc_subtensor
        outs.append(build(x[index], ys[-1]))

    class Compiled(dict):
        def __missing__(self, mode):
            self[mode] = opkit.function([x, *ys], outs, mode=mode)
            return self[mode]

    return xv, yvs, outs, Compiled()


# DebugMode compiles a module per node (twelve) to check the C FAST_RUN runs against the perform FAST_COMPILE runs,
# each compared with numpy here: `-m soak` (test_inplace_never_writes_into_the_callers_x runs DebugMode by default)
@pytest.mark.parametrize("modes", [pytest.param(MODES, id="FAST_RUN-FAST_COMPILE"),
                                   pytest.param(["DebugMode"], id="DebugMode", marks=pytest.mark.soak)])
@pytest.mark.parametrize("set_instead_of_inc", [True, False], ids=["set", "inc"])
@pytest.mark.parametrize("index", STATIC_INDICES, ids=["int", "neg_step", "slice_int", "clamped", "empty", "scalar"])
def test_static_indices_in_every_mode_and_eager(static_functions, index, set_instead_of_inc, modes):
    """Constant indices (None bounds, clamped, empty): FAST_RUN, FAST_COMPILE, DebugMode and op.compute."""
    xv, yvs, outs, functions = static_functions
    case = STATIC_CASES.index((index, set_instead_of_inc))
    yv, out = yvs[case], outs[case]
    expected = numpy_result(xv, index, yv, set_instead_of_inc)
    for mode in modes:
        assert_same(functions[mode](xv, *yvs)[case], expected)
    op = out.owner.op
    assert isinstance(op, IncSubtensor) and op.set_instead_of_inc == set_instead_of_inc
    assert_same(op.compute(xv, yv, *[np.asarray(v.data) for v in out.owner.inputs[2:]]), expected)


def test_fast_run_uses_the_c_code():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    # FAST_RUN's graph (nothing runs here: the C runs in the tests of FAST_RUN above and below)
    f = opkit.function([x, y], ot.inc_subtensor(ot.exp(x)[1:, ::-1], y), mode=FAST_RUN_GRAPH)
    nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, IncSubtensor)]
    assert nodes and all(op_has_c(n) for n in nodes)
    assert nodes[0].op.view_map == {} and nodes[0].op.destroy_map == {}


# -- dtypes -------------------------------------------------------------------------------------------------

# FAST_RUN's C of these dtypes is that of another dtype of their kind (int16, int32: int8's and int64's; uint8 to
# uint32: uint64's; float32: float64's; complex64: complex128's): `-m soak`. FAST_COMPILE compiles nothing: every dtype.
SOAK_DTYPES = ("int16", "int32", "uint8", "uint16", "uint32", "float32", "complex64")
_DTYPE_FUNCTIONS = {}


def dtype_function(mode, dtype):
    """(f, group): one function of every dtype of dtype's group (SOAK_DTYPES, or the others) per mode, taking x and y
    of each in turn and giving three outputs for each (in FAST_RUN one module per group, not one per dtype: CI time)."""
    group = tuple(d for d in ALL_DTYPES if (d in SOAK_DTYPES) == (dtype in SOAK_DTYPES))
    if (mode, group) not in _DTYPE_FUNCTIONS:
        inputs, outputs = [], []
        for d in group:
            x, y = ot.tensor(d, shape=(None, None)), ot.tensor(d, shape=(1, None))
            inputs += [x, y]
            outputs += [ot.set_subtensor(x[1:, ::-2], y), ot.inc_subtensor(x[-1, :3], y[0]),
                        ot.inc_subtensor(x[:, 1:4], y)]
        _DTYPE_FUNCTIONS[mode, group] = opkit.function(inputs, outputs, mode=mode)
    return _DTYPE_FUNCTIONS[mode, group], group


@pytest.mark.parametrize("mode, dtype", [
    pytest.param(mode, dtype, marks=[pytest.mark.soak] if mode == "FAST_RUN" and dtype in SOAK_DTYPES else [],
                 id=f"{mode}-{dtype}") for mode in MODES for dtype in ALL_DTYPES])
def test_every_dtype(dtype, mode):
    """Set and add of the same dtype (bool's add is numpy's: or); y broadcast along the first axis."""
    f, group = dtype_function(mode, dtype)
    xv, yv = values(dtype, (3, 5), 3), values(dtype, (1, 3), 4)
    got = f(*[v for d in group for v in (values(d, (3, 5), 3), values(d, (1, 3), 4))])[3 * group.index(dtype):][:3]
    assert_same(got[0], numpy_result(xv, (slice(1, None), slice(None, None, -2)), yv, True))
    assert_same(got[1], numpy_result(xv, (-1, slice(None, 3)), yv[0], False))
    assert_same(got[2], numpy_result(xv, (slice(None), slice(1, 4)), yv, False))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("x_dtype, y_dtype", [("float32", "float64"), ("int8", "int64"), ("float64", "bool"),
                                              ("int32", "float64"), ("uint8", "int16"), ("bool", "float32"),
                                              ("float16", "complex128"), ("int64", "uint64")])
def test_set_casts_y_as_numpy_assignment_does(mode, x_dtype, y_dtype):
    """x[idx] = y casts unsafely (wraps ints, truncates floats, drops an imaginary part with numpy's warning)."""
    x, y = ot.tensor(x_dtype, shape=(None,)), ot.tensor(y_dtype, shape=(None,))
    f = opkit.function([x, y], ot.set_subtensor(x[1:], y), mode=mode)
    xv = values(x_dtype, (4,), 5)
    yv = np.array([300, -7, 2], dtype="int64").astype(y_dtype) if y_dtype != "bool" else np.array([1, 0, 1], bool)
    if np.dtype(y_dtype).kind == "f":
        yv = np.array([300.7, -7.5, 2.25], dtype=y_dtype)
    if np.dtype(y_dtype).kind == "c":
        yv = np.array([1.5 + 2j, -3, 0.25j], dtype=y_dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(xv, yv)
    with warnings.catch_warnings(record=True) as numpy_caught:
        warnings.simplefilter("always")
        expected = numpy_result(xv, slice(1, None), yv, True)
    assert_same(got, expected)
    assert sorted({w.category.__name__ for w in caught}) == sorted({w.category.__name__ for w in numpy_caught})


INC_CASTS = [("float32", "float64"), ("int8", "int64"), ("int64", "bool"), ("complex64", "float64"),
             ("uint16", "uint64")]


@pytest.fixture(scope="module")
def inc_cast_functions():
    """{mode: f}: f takes x and y of each pair of INC_CASTS in turn and gives each pair's inc_subtensor (in FAST_RUN
    one module, not one per pair: CI time)."""
    inputs = [ot.tensor(d, shape=(None,) if k == 0 else ()) for pair in INC_CASTS for k, d in enumerate(pair)]
    outputs = [ot.inc_subtensor(x[::2], y) for x, y in zip(inputs[::2], inputs[1::2])]
    return {mode: opkit.function(inputs, outputs, mode=mode) for mode in MODES}


def _inc_cast_values(x_dtype, y_dtype):
    return values(x_dtype, (5,), 6), np.asarray(120 if y_dtype != "bool" else True, dtype=y_dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("x_dtype, y_dtype", INC_CASTS)
def test_inc_casts_y_as_numpy_in_place_add_does(inc_cast_functions, mode, x_dtype, y_dtype):
    """x[idx] += y with numpy's 'same_kind' cast back to x's dtype (int8 += int64 wraps, as numpy's)."""
    xv, yv = _inc_cast_values(x_dtype, y_dtype)
    got = inc_cast_functions[mode](*[v for pair in INC_CASTS for v in _inc_cast_values(*pair)])
    assert_same(got[INC_CASTS.index((x_dtype, y_dtype))], numpy_result(xv, slice(None, None, 2), yv, False))


@pytest.mark.parametrize("x_dtype, y_dtype", [("int32", "float64"), ("bool", "int8"), ("uint8", "int8"),
                                              ("float32", "complex64"), ("int64", "float16")])
def test_inc_refuses_a_y_numpy_would_not_add_back(x_dtype, y_dtype):
    x, y = ot.tensor(x_dtype, shape=(None,)), ot.tensor(y_dtype, shape=())
    with np.errstate(all="ignore"), pytest.raises(Exception) as numpy_error:
        numpy_result(np.zeros(3, x_dtype), slice(1, None), np.ones((), y_dtype), False)
    assert "same_kind" in str(numpy_error.value)
    with pytest.raises(TypeError, match=rf"inc_subtensor: cannot add a {y_dtype} y to a {x_dtype} x: as numpy's "
                                        r"x\[index\] \+= y, the sum is \w+, which casting rule 'same_kind' does "
                                        rf"not cast back to {x_dtype}"):
        ot.inc_subtensor(x[1:], y)
    with pytest.raises(TypeError, match="same_kind"):
        x[1:].inc(y)
    ot.set_subtensor(x[1:], y)  # a set casts


@pytest.mark.parametrize("mode", MODES)
def test_python_numbers_convert_as_numpy_converts_them(mode):
    x = ot.tensor("int8", shape=(None,))
    xv = np.array([1, 2, 3], dtype="int8")
    f = opkit.function([x], [ot.set_subtensor(x[1:], 100), ot.inc_subtensor(x[:1], -5), x[2].set(True),
                             x[0].inc(True)], mode=mode)
    got = f(xv)
    expected = [numpy_result(xv, slice(1, None), 100, True), numpy_result(xv, slice(None, 1), -5, False),
                numpy_result(xv, 2, True, True), numpy_result(xv, 0, True, False)]
    for g, e in zip(got, expected):
        assert_same(g, e)
    y = ot.fvector("y")
    out = ot.inc_subtensor(y[1:], 2.5)
    assert out.owner.inputs[1].dtype == "float32"  # a Python float next to float32 stays float32, as numpy's
    assert_same(opkit.function([y], out, mode=mode)(np.ones(3, "float32")),
                numpy_result(np.ones(3, "float32"), slice(1, None), 2.5, False))


def test_python_numbers_that_numpy_refuses():
    x, v = ot.tensor("int8", shape=(None,)), ot.dvector("v")
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        ot.set_subtensor(x[1:], 1000)
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        ot.inc_subtensor(x[1:], 1000)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        ot.inc_subtensor(ot.tensor("uint8", shape=(None,))[0], -1)
    with pytest.raises(TypeError, match=r"inc_subtensor: cannot add the Python float 1.5 to a int8 x: .* the sum "
                                        r"is float64"):
        ot.inc_subtensor(x[1:], 1.5)
    with pytest.raises(TypeError, match=r"set_subtensor: cannot convert the Python complex \(1\+2j\) to x's dtype "
                                        "float64"):
        ot.set_subtensor(v[1:], 1 + 2j)


# -- memory: never the caller's x, unless in place on memory only this op reads ---------------------------------

@pytest.mark.parametrize("mode", [*MODES, "DebugMode"])
def test_inplace_never_writes_into_the_callers_x(mode):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], [ot.inc_subtensor(x[1:], y, inplace=True), ot.set_subtensor(ot.exp(x)[:2], y[:2],
                                                                                          inplace=True)], mode=mode)
    xv, yv = np.arange(3.0), np.ones(2)
    first, second = f(xv, yv)
    assert_same(xv, np.arange(3.0))
    assert_same(first, numpy_result(np.arange(3.0), slice(1, None), yv, False))
    assert_same(second, numpy_result(np.exp(np.arange(3.0)), slice(None, 2), yv, True))
    assert not np.shares_memory(first, xv)


@pytest.mark.parametrize("mode", MODES)
def test_y_a_view_of_x_in_place(mode):
    """y reads the memory inplace overwrites: opkit copies x first (tolerate_inplace_aliasing or not)."""
    x = ot.dvector("x")
    e = ot.exp(x)
    outs = [ot.inc_subtensor(e[1:], e[:-1], inplace=True, tolerate_inplace_aliasing=flag) for flag in (False, True)]
    xv = np.arange(4.0)
    for got in opkit.function([x], outs, mode=mode)(xv):
        assert_same(got, numpy_result(np.exp(xv), slice(1, None), np.exp(xv)[:-1], False))


def _unaligned(value):
    buffer = np.zeros(value.nbytes + 1, np.uint8)[1:].view(value.dtype).reshape(value.shape)
    buffer[...] = value
    assert not buffer.flags.aligned
    return buffer


@pytest.mark.parametrize("mode", MODES)
def test_layouts_of_x_and_y(mode):
    """C order, Fortran, strided, negative strides, byte-swapped and unaligned x and y."""
    x, y = ot.dtensor3("x"), ot.dmatrix("y")
    f = opkit.function([x, y], [ot.set_subtensor(x[:, 1:, ::-1], y), ot.inc_subtensor(x[1:, 1:, ::-1], y)],
                       mode=mode)
    base = values("float64", (5, 7, 9), 7)
    xs = [base[:2, :3, :4].copy(), np.asfortranarray(base[:2, :3, :4]), base[::2, ::3, ::2][:2, :3, :4],
          base[::-1, ::-1, ::-1][:2, :3, :4], base[:2, :3, :4].astype(">f8"), _unaligned(base[:2, :3, :4])]
    yb = values("float64", (6, 9), 8)
    ys = [yb[:2, :4].copy(), np.asfortranarray(yb[:2, :4]), yb[::3, ::2][:2, :4], yb[::-1, ::-1][:2, :4],
          yb[:2, :4].astype(">f8"), _unaligned(yb[:2, :4])]
    for xv in xs:
        for yv in ys:
            got_set, got_inc = f(xv, yv)
            xv = xv.astype("float64")  # the function's dtype: native byte order
            assert_same(got_set, numpy_result(xv, (slice(None), slice(1, None), slice(None, None, -1)), yv, True))
            assert_same(got_inc, numpy_result(xv, (slice(1, None), slice(1, None), slice(None, None, -1)), yv,
                                              False))


def test_threads_share_one_function():
    x, y, i = ot.dvector("x"), ot.dscalar("y"), ot.lscalar("i")
    f = opkit.function([x, y, i], ot.inc_subtensor(x[i:], y), mode="FAST_RUN")
    failures = []

    def work(seed):
        for k in range(200):
            xv = np.full(50, float(seed))
            got = f(xv, float(k), k % 50)
            if not np.array_equal(got, numpy_result(xv, slice(k % 50, None), float(k), False)):
                failures.append((seed, k))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


# -- errors, the op's own message in every mode and through an inferred shape ----------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_run_time_errors_are_numpys(mode):
    x, y, i = ot.dmatrix("x"), ot.dvector("y"), ot.lscalar("i")
    f = opkit.function([x, y, i], [ot.set_subtensor(x[i, 1:], y), ot.inc_subtensor(x[:, ::i], y)], mode=mode)
    xv = np.zeros((2, 3))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 2"):
        f(xv, np.ones(2), 5)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(2,\)"):
        f(xv, np.ones(3), 1)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        f(xv, np.ones(2), 0)


@pytest.mark.parametrize("mode", MODES)
def test_an_inferred_shape_keeps_the_ops_checks(mode):
    x, y, i = ot.dmatrix("x"), ot.dvector("y"), ot.lscalar("i")
    f = opkit.function([x, y, i], ot.set_subtensor(x[i, 1:], y).shape, mode=mode)
    np.testing.assert_array_equal(f(np.zeros((2, 3)), np.ones(2), 1), [2, 3])
    with pytest.raises(IndexError, match="index -3 is out of bounds for axis 0 with size 2"):
        f(np.zeros((2, 3)), np.ones(2), -3)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(2,\)"):
        f(np.zeros((2, 3)), np.ones(3), 1)


def test_build_time_errors():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    with pytest.raises(TypeError, match=r"set_subtensor: x must be the result of indexing a tensor with integers "
                                        r"and slices, integer arrays or masks \(x\[1:, 2\], x\[idx\], x\[mask\], "
                                        r"x.shape\[0\]\), got x$"):
        ot.set_subtensor(x, 1.0)
    with pytest.raises(TypeError, match=r"inc_subtensor: x must be the result .*, a result of "):
        ot.inc_subtensor(ot.exp(x), 1.0)
    with pytest.raises(TypeError, match=r"cannot put a 2-d y into x\[index\], which has 1 dimensions"):
        ot.set_subtensor(x[1:], m)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(2,\)"):
        ot.set_subtensor(ot.tensor("float64", shape=(5,))[3:], ot.tensor("float64", shape=(3,)))
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5"):
        ot.set_subtensor(ot.tensor("float64", shape=(5,))[7], 1.0)
    with pytest.raises(IndexError, match="too many indices: 2 given for a 1-d tensor"):
        IncSubtensor(("int", "int"))(x, 1.0, 0, 0)
    with pytest.raises(ValueError, match=r"IncSubtensor\{i, v::v\} takes 3 index scalars after x and y \(one per "
                                         r"integer and per given slice bound\), got 2"):
        IncSubtensor(("int", ("slice", True, False, True)))(m, 1.0, 0, 1)


# -- gradients -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("build, shapes", [
    (lambda x, y: ot.set_subtensor(x[1:, ::-2], y), [(3, 5), (2, 3)]),
    (lambda x, y: ot.inc_subtensor(x[1:, ::-2], y), [(3, 5), (2, 3)]),
    (lambda x, y: ot.set_subtensor(x[-1], y) * x, [(3, 4), ()]),
    (lambda x, y: ot.inc_subtensor(x[:, 2], y) ** 2, [(3, 4), ()]),
    (lambda x, y: ot.set_subtensor(x[::2], ot.specify_shape(y, (1, None))), [(4, 3), (1, 3)]),
    (lambda x, y: ot.inc_subtensor(x[5:], y), [(3, 2), (2,)]),
], ids=["set", "inc", "set_scalar", "inc_scalar", "set_static_broadcast", "empty"])
def test_gradients(mode, build, shapes):
    rng = np.random.default_rng(0)
    verify_grad(build, [rng.standard_normal(s) for s in shapes], mode=mode, rng=np.random.RandomState(0))


@pytest.mark.parametrize("mode", MODES)
def test_gradient_values(mode):
    x, y = ot.dmatrix("x"), ot.dvector("y")
    cost = (ot.set_subtensor(x[1:, ::2], y) * 3).sum() + ot.inc_subtensor(x[0], y[0]).sum()
    gx, gy = opkit.function([x, y], opkit.grad(cost, [x, y]), mode=mode)(np.ones((3, 4)), np.ones(2))
    expected_gx = np.full((3, 4), 4.0)
    expected_gx[1:, ::2] = 1.0
    np.testing.assert_array_equal(gx, expected_gx)
    np.testing.assert_array_equal(gy, [3.0 * 2 + 4.0, 3.0 * 2])


@pytest.mark.parametrize("mode", MODES)
def test_gradient_sums_a_broadcast_its_type_does_not_state(mode):
    """y of length 1 broadcast into x[index] of length 3 at run time: its gradient is summed to length 1."""
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], opkit.grad((ot.inc_subtensor(x[1:], y) * ot.arange(4.0)).sum(), y), mode=mode)
    np.testing.assert_array_equal(f(np.zeros(4), np.ones(3)), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f(np.zeros(4), np.ones(1)), [6.0])


def test_integer_results_have_zero_gradients():
    x, y = ot.lvector("x"), ot.dscalar("y")
    gx, gy = opkit.grad(ot.set_subtensor(x[1:], y).sum(), [x, y])
    assert gx.dtype == opkit.config.floatX and gy.dtype == "float64"
    np.testing.assert_array_equal(gx.eval({x: np.ones(3, "int64")}), np.zeros(3))
    assert float(gy.eval({y: 2.0})) == 0.0


def test_rop():
    x, y, ex, ey = ot.dvector("x"), ot.dvector("y"), ot.dvector("ex"), ot.dvector("ey")
    out = ot.set_subtensor(x[1:], y)
    f = opkit.function([x, y, ex, ey], ot.Rop(out, [x, y], [ex, ey]), on_unused_input="ignore")
    r = f(np.zeros(3), np.zeros(2), np.ones(3), np.full(2, 5.0))
    np.testing.assert_array_equal(r, [1.0, 5.0, 5.0])


# -- the shape of the result, and x.shape[i] as the target (Theano's neibs2images) ------------------------------

class TestIncSubtensorShapes(InferShapeTester):
    mode = FAST_RUN_GRAPH  # infer_shape under FAST_RUN's rewrites; the op's C results are tested above

    def test_shape(self):
        x, y, i = ot.dmatrix("x"), ot.dvector("y"), ot.lscalar("i")
        self._compile_and_check([x, y, i], [ot.set_subtensor(x[i, ::-1], y), ot.inc_subtensor(x[1:, i], y)],
                                [self.rng.rand(4, 5), self.rng.rand(1), 2], IncSubtensor)


@pytest.mark.parametrize("mode", MODES)
def test_setting_an_entry_of_a_shape(mode):
    x = ot.dtensor4("x")
    shape = x.shape
    new = ot.set_subtensor(shape[2], (shape[2] // 2) * 2)
    new = ot.set_subtensor(new[3], 1)
    got = opkit.function([x], new, mode=mode)(np.zeros((1, 2, 5, 7)))
    assert_same(got, np.array([1, 2, 4, 1]))


INDEX_DTYPES = ["int8", "uint8", "int32", "uint64"]


@pytest.fixture(scope="module")
def index_dtype_functions():
    """{mode: f}: f(x, one index scalar of each of INDEX_DTYPES) gives set and inc through each index in turn (in
    FAST_RUN one module, not one per dtype: CI time)."""
    x, indices = ot.dvector("x"), [ot.tensor(d, shape=()) for d in INDEX_DTYPES]
    outputs = [out for i in indices for out in (ot.set_subtensor(x[i], 7.0), ot.inc_subtensor(x[i::-1], 1.0))]
    return {mode: opkit.function([x, *indices], outputs, mode=mode) for mode in MODES}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_index_scalars_of_every_integer_dtype(index_dtype_functions, mode, index_dtype):
    xv = np.arange(5.0)
    got = index_dtype_functions[mode](xv, *[np.asarray(3, d) for d in INDEX_DTYPES])
    got = got[2 * INDEX_DTYPES.index(index_dtype):]
    assert_same(got[0], numpy_result(xv, 3, 7.0, True))
    assert_same(got[1], numpy_result(xv, slice(3, None, -1), 1.0, False))


def test_a_second_process_runs_the_same_graph():
    """A fresh interpreter builds and runs the graph (from the compile cache or compiling it): numpy's answer."""
    import subprocess
    import sys

    script = ("import numpy as np, opkit, opkit.tensor as ot\n"
              "x, y = ot.dmatrix('x'), ot.dvector('y')\n"
              "f = opkit.function([x, y], ot.inc_subtensor(x[1:, ::-1], y), mode='FAST_RUN')\n"
              "print(f(np.zeros((2, 3)), np.arange(3.0)).tolist())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    assert out.stdout.strip() == str(numpy_result(np.zeros((2, 3)), (slice(1, None), slice(None, None, -1)),
                                                  np.arange(3.0), False).tolist())

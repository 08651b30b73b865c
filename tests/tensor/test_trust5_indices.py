"""Integer index scalars of every dtype, and Python/numpy integer constants, read as numpy reads them (issue 44 items
1 and 2).

numpy reads an integer index as a C index (npy_intp): beyond it, OverflowError (2**63 to 2**64 - 1) or IndexError.
It reads a slice bound as a Python int and clamps it to the axis, whatever its size. The C once cast a uint64 to
npy_intp (2**64 - 1 became -1) and the graph wrapped a constant np.uint64 to int64. The oracle is numpy, indexed
with a numpy scalar of the same dtype (or the same Python int). Each path runs: FAST_RUN (Subtensor's and
IncSubtensor's C, IndexValue's C in the shape checks), FAST_COMPILE (their perform) and DebugMode.

One function per mode covers every index position (start, stop, step, integer) for get, set and inc, for several
dtypes at once: each dtype's inputs a, b, c fill the positions, so each value is tried at every position by a call,
not a compile (the other dtypes' inputs hold SAFE values meanwhile, whose outputs are checked too).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c
from opkit.core.tensor.shapes.inc_subtensor import IncSubtensor
from opkit.core.tensor.shapes.index_values import IndexValue
from opkit.core.tensor.shapes.subtensor import Subtensor

MODES = ["FAST_RUN", "FAST_COMPILE"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
EDGES = [0, 1, 2, 3, 4, 5, 6, 7, -1, -2, -5, -6, -7, 2**7 - 1, -2**7, 2**8 - 1, 2**15 - 1, -2**15, 2**16 - 1,
         2**31 - 1, -2**31, 2**32 - 1, 2**63 - 1, 2**63, 2**64 - 1, -2**63]
XV = np.arange(5.0) + 1.0


def fits(value, dtype):
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def numpy_outputs(x, a, b, c):
    """What `index_function` returns, by numpy: a and b are start and stop, c the step, b the integer index."""
    def set_(index, y):
        r = x.copy()
        r[index] = y
        return r

    def inc(index, y):
        r = x.copy()
        r[index] += y
        return r

    m = x.reshape(5, 1) * np.array([1.0, 10.0])
    return [x[a:], x[:a], x[a:b], x[a:b:c], x[::c], x[a::c], x[:a:c], x[::-1][a::c],
            set_(slice(a, None), -1.0), set_(slice(None, a), -1.0), set_(slice(None, None, c), -1.0),
            inc(slice(a, b, c), 10.0), inc(slice(None, a), 10.0), inc(slice(a, None, c), 10.0),
            x[b], set_(b, -1.0), inc(b, 10.0), m[b, ::c], m[a:, 0]]


# The dtypes whose index forms share one function: the default run's (a narrow and the widest signed integer, a
# narrow unsigned one and uint64, beyond int64) and the others (subtensor.c reads them as it reads int8 or uint8:
# soak).
DTYPE_GROUPS = (("int8", "int64", "uint8", "uint64"), ("int16", "int32", "uint16", "uint32"))
SAFE = (1, 2, 1)  # a, b, c of the dtypes not under test: no form raises
_FUNCTIONS = {}


def index_function(dtype, mode):
    """(f, dtypes): f(x, a, b, c per dtype of `dtype`'s group) -> numpy_outputs' list of each dtype, in order."""
    dtypes = next(group for group in DTYPE_GROUPS if dtype in group)
    key = (dtypes, mode)
    if key not in _FUNCTIONS:
        x = ot.dvector("x")
        m = x.dimshuffle(0, "x") * ot.constant(np.array([1.0, 10.0]))
        inputs, outputs = [x], []
        for d in dtypes:
            a, b, c = (ot.tensor(dtype=d, shape=(), name=f"{n}_{d}") for n in "abc")
            inputs += [a, b, c]
            outputs += [x[a:], x[:a], x[a:b], x[a:b:c], x[::c], x[a::c], x[:a:c], x[::-1][a::c],
                        ot.set_subtensor(x[a:], -1.0), ot.set_subtensor(x[:a], -1.0), ot.set_subtensor(x[::c], -1.0),
                        ot.inc_subtensor(x[a:b:c], 10.0), ot.inc_subtensor(x[:a], 10.0),
                        ot.inc_subtensor(x[a::c], 10.0), x[b], ot.set_subtensor(x[b], -1.0),
                        ot.inc_subtensor(x[b], 10.0), m[b, ::c], m[a:, 0]]
        _FUNCTIONS[key] = opkit.function(inputs, outputs, mode=mode), dtypes
    return _FUNCTIONS[key]


def assert_matches(got, expected):
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected)):
        g, e = np.asarray(g), np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape, (k, g, e)
        np.testing.assert_array_equal(g, e, err_msg=f"output {k}")


def numpy_error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - numpy's exception is the oracle
        return exc
    return None


def check_call(function, dtype, a, b, c):
    """`function` (index_function's) with a, b, c as `dtype`'s index values gives numpy's outputs, or raises
    numpy's exception class with opkit's message."""
    f, dtypes = function
    scalars = [np.array(v, dtype=d)[()] for d in dtypes for v in ((a, b, c) if d == dtype else SAFE)]
    sa, sb, sc = scalars[3 * dtypes.index(dtype):3 * dtypes.index(dtype) + 3]  # numpy scalars of the dtype
    expected = numpy_error(lambda: numpy_outputs(XV, sa, sb, sc))
    if expected is None:
        want = [o for k in range(len(dtypes)) for o in numpy_outputs(XV, *scalars[3 * k:3 * k + 3])]
        assert_matches(f(XV, *scalars), want)
        return
    with pytest.raises(type(expected)) as info:
        f(XV, *scalars)
    message = {OverflowError: f"Python int too large to convert to C long \\(index {b} on axis 0\\)",
               IndexError: f"index {b} is out of bounds for axis 0 with size 5",
               ValueError: "slice step cannot be zero"}[type(expected)]
    info.match(message)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_position_every_edge_value_matches_numpy(dtype, mode):
    """Each edge value the dtype holds, at start/stop (a), step (c) and as the integer index (b)."""
    f = index_function(dtype, mode)
    if mode == "FAST_RUN":
        nodes = [n for n in f[0].maker.fgraph.toposort() if isinstance(n.op, (Subtensor, IncSubtensor))
                 and n.inputs[-1].type.dtype == dtype]
        assert len(nodes) >= 15 and all(op_has_c(n) for n in nodes)
    values = [v for v in EDGES if fits(v, dtype)]
    back = -1 if fits(-1, dtype) else 3
    for v in values:
        check_call(f, dtype, v, 1, v if v != 0 else 1)  # v as start/stop and as step
        check_call(f, dtype, 2, v, back)  # v as the integer index: numpy's IndexError or OverflowError past 4
        check_call(f, dtype, v, v, 2)
    check_call(f, dtype, 1, 1, 0)  # step zero: ValueError


@st.composite
def index_values(draw, dtype):
    """(a, b, c) of `dtype`: edges and anything in the dtype's range."""
    info = np.iinfo(dtype)
    value = st.one_of(st.sampled_from([v for v in EDGES if fits(v, dtype)]), st.integers(int(info.min), int(info.max)))
    return draw(value), draw(value), draw(value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["int64", "uint64", "uint32", "int8"])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_drawn_index_values_match_numpy(dtype, mode, data):
    a, b, c = data.draw(index_values(dtype))
    check_call(index_function(dtype, mode), dtype, a, b, c or 1)  # step zero: its own case above


# -- uint64 beyond int64: the reported cases, the order of numpy's errors, and the shape checks (IndexValue) ------

@pytest.mark.parametrize("mode", MODES)
def test_the_reported_uint64_cases(mode):
    x, u = ot.dvector("x"), ot.tensor(dtype="uint64", shape=())
    f = opkit.function([x, u], [x[u:], ot.set_subtensor(x[u:], -1.0), ot.inc_subtensor(x[:u], 10.0), x[::u]],
                       mode=mode)
    big = np.uint64(2**64 - 1)
    xv = np.arange(5.0)
    assert_matches(f(xv, big), [xv[big:], xv, xv + 10, xv[:1]])
    g = opkit.function([x, u], [x[u], ot.set_subtensor(x[u], 1.0)], mode=mode)
    for value in (2**63, 2**64 - 1):
        with pytest.raises(OverflowError, match=f"too large to convert to C long \\(index {value} on axis 0\\)"):
            g(xv, np.uint64(value))


@pytest.mark.parametrize("mode", MODES)
def test_gradients_through_a_uint64_index_read_it_as_the_forward_pass(mode):
    """SubtensorGrad and IncSubtensor's gradient index with the same scalars: x[u:] for u = 2**64 - 1 is empty."""
    x, y, u = ot.dvector("x"), ot.dvector("y"), ot.tensor(dtype="uint64", shape=())
    cost = ot.sum(x[u:] * 3.0) + ot.sum(x[::u] * 5.0) + ot.sum(ot.inc_subtensor(x[:u], y) * 7.0)
    f = opkit.function([x, y, u], opkit.grad(cost, [x, y]), mode=mode)
    for value, length in [(2**64 - 1, 5), (2**63, 5), (3, 3)]:
        gx, gy = f(XV, np.ones(length), np.uint64(value))
        expected = np.full(5, 7.0)
        expected[int(value):] += 3.0
        expected[::int(value)] += 5.0
        assert_matches([gx, gy], [expected, np.full(length, 7.0)])


@pytest.mark.parametrize("mode", [*MODES, "DebugMode"])
def test_numpy_reads_every_integer_before_it_checks_any(mode):
    """m[7, huge] and m[::0, huge] raise OverflowError (the conversion) as numpy does, not IndexError/ValueError;
    their shapes alone (FAST_RUN infers them through IndexValue and Assert) raise the same."""
    m, i, u, k = ot.dmatrix("m"), ot.lscalar("i"), ot.tensor(dtype="uint64", shape=()), ot.lscalar("k")
    outputs = [m[i, u], m[::k, u], ot.set_subtensor(m[i, u], 1.0), ot.inc_subtensor(m[::k, u], 1.0)]
    mv = np.arange(25.0).reshape(5, 5)
    for iv, uv, kv in [(7, 2**64 - 1, 1), (0, 2**63, 0)]:
        assert isinstance(numpy_error(lambda: mv[iv, np.uint64(uv)]), OverflowError)
        assert isinstance(numpy_error(lambda: mv[::kv, np.uint64(uv)]), OverflowError)
    r0, r1 = mv.copy(), mv.copy()
    r0[4, 2] = 1.0
    r1[::-1, 2] += 1.0
    expected = [mv[4, 2], mv[::-1, 2], r0, r1]
    for shape_only in (False, True):
        f = opkit.function([m, i, u, k], [o.shape for o in outputs] if shape_only else outputs, mode=mode)
        for iv, uv, kv in [(7, 2**64 - 1, 1), (0, 2**63, 0)]:
            with pytest.raises(OverflowError, match=f"too large to convert to C long \\(index {uv} on axis 1\\)"):
                f(mv, iv, np.uint64(uv), kv)
        got = f(mv, 4, np.uint64(2), -1)
        assert_matches(got, [np.array(e.shape, dtype="int64") for e in expected] if shape_only else expected)


@pytest.mark.parametrize("mode", MODES)
def test_the_shape_of_an_out_of_range_uint64_index_raises(mode):
    """FAST_RUN computes x[u].shape without indexing (Assert); the Assert's C reads int64, so IndexValue reads u."""
    x, u = ot.dvector("x"), ot.tensor(dtype="uint64", shape=())
    f = opkit.function([x, u], [x[u].shape, ot.set_subtensor(x[u], 2.0).shape], mode=mode)
    if mode == "FAST_RUN":
        nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, IndexValue)]
        assert nodes and all(op_has_c(n) for n in nodes)
        assert not any(isinstance(n.op, (Subtensor, IncSubtensor)) for n in f.maker.fgraph.toposort())
    assert [tuple(s) for s in f(np.arange(5.0), np.uint64(4))] == [(), (5,)]
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        f(np.arange(5.0), np.uint64(5))
    with pytest.raises(IndexError, match="index 9223372036854775807 is out of bounds for axis 0 with size 5"):
        f(np.arange(5.0), np.uint64(2**63 - 1))
    for value in (2**63, 2**64 - 1):
        with pytest.raises(OverflowError, match=f"Python int too large to convert to C long \\(index {value} on "):
            f(np.arange(5.0), np.uint64(value))


def test_index_value_op_matches_numpy_in_every_mode():
    u, s = ot.tensor(dtype="uint64", shape=()), ot.tensor(dtype="int8", shape=())
    for mode in [*MODES, "DebugMode"]:
        f = opkit.function([u, s], [IndexValue(3)(u), IndexValue(0)(s)], mode=mode)
        got = f(np.uint64(2**63 - 1), np.int8(-128))
        assert [(g.dtype, int(g)) for g in got] == [(np.dtype("int64"), 2**63 - 1), (np.dtype("int64"), -128)]
        with pytest.raises(OverflowError, match=r"too large to convert to C long \(index 9223372036854775808 on "
                                                r"axis 3\)"):
            f(np.uint64(2**63), np.int8(0))
    with pytest.raises(TypeError, match=r"IndexValue\{axis=0\} takes a 0-d integer tensor, got .*"
                                        r"TensorType\(float64, scalar\)"):
        IndexValue(0)(ot.dscalar())


# -- constants: Python ints of any size, numpy integers of every dtype, at every position -------------------------

CONSTANTS = [0, 3, -2, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, -2**70, 10**30,
             np.uint64(2**64 - 1), np.uint64(2**63), np.int64(-2**63), np.uint8(200), np.int8(-100), np.uint32(4)]


def constant_outputs(x, c, xv=None):
    """The index forms with the constant c at every slice position, for a tensor or (with xv) for numpy."""
    forms = [(slice(c, None),), (slice(None, c),), (slice(c, c),), (slice(-3, c),)]
    if int(c) != 0:
        forms += [(slice(None, None, c),), (slice(1, None, c),), (slice(c, None, c),), (slice(None, -2, c),)]
    if xv is None:
        return ([x[f] for f in forms] + [ot.set_subtensor(x[f], -1.0) for f in forms]
                + [ot.inc_subtensor(x[f], 10.0) for f in forms])
    sets, incs = [], []
    for f in forms:
        sets.append(xv.copy())
        sets[-1][f] = -1.0
        incs.append(xv.copy())
        incs[-1][f] += 10.0
    return [xv[f] for f in forms] + sets + incs


@pytest.mark.parametrize("shape", [(None,), (5,)])
@pytest.mark.parametrize("mode", MODES)
def test_constant_slice_bounds_of_any_size_clamp_as_numpy(mode, shape):
    """x[np.uint64(2**64 - 1):] is empty, x[:2**64] all of x: constants are clamped, never wrapped (one function)."""
    x = ot.tensor(dtype="float64", shape=shape)
    outputs = [o for c in CONSTANTS for o in constant_outputs(x, c)]
    expected = [e for c in CONSTANTS for e in constant_outputs(None, c, XV)]
    got = opkit.function([x], outputs, mode=mode)(XV)
    assert_matches(got, expected)
    for o, e in zip(outputs, expected):  # the static shape is numpy's where x's length is known
        assert o.type.shape == (None if shape[0] is None else e.shape[0],)


@pytest.mark.parametrize("value", [2**63, 2**64 - 1, np.uint64(2**63), np.uint64(2**64 - 1), 2**64, -2**63 - 1,
                                   2**70, -2**70])
def test_a_constant_integer_index_beyond_npy_intp_raises_numpy_s_error_at_once(value):
    expected = numpy_error(lambda: XV[value])
    x = ot.dvector("x")
    if isinstance(expected, OverflowError):
        match = f"Python int too large to convert to C long \\(index {int(value)} on axis 0\\)"
    else:
        assert isinstance(expected, IndexError)
        match = f"index {int(value)} is out of bounds for axis 0: it is beyond the range of a C index"
    with pytest.raises(type(expected), match=match):
        x[value]
    with pytest.raises(type(expected), match=match.replace("axis 0", "axis 1")):
        ot.dmatrix()[1:, value]


@pytest.mark.parametrize("mode", MODES)
def test_constant_integer_indices_of_every_numpy_dtype(mode):
    x = ot.dvector("x")
    indices = [np.int8(-5), np.uint8(4), np.int16(-1), np.uint16(0), np.int32(2), np.uint32(3), np.int64(-3),
               np.uint64(1), 2**0, -4]
    outputs = [x[i] for i in indices] + [ot.set_subtensor(x[i], -1.0) for i in indices]
    expected = [XV[i] for i in indices]
    for i in indices:
        expected.append(XV.copy())
        expected[-1][i] = -1.0
    assert_matches(opkit.function([x], outputs, mode=mode)(XV), expected)
    f = opkit.function([x], x[np.int64(-2**63)], mode=mode)
    with pytest.raises(IndexError, match="index -9223372036854775808 is out of bounds for axis 0 with size 5"):
        f(XV)


@pytest.mark.parametrize("mode", [*MODES, "DebugMode"])
def test_a_uint64_constant_variable_is_read_as_numpy_reads_it(mode):
    """A uint64 constant made by the user (not converted by the index parser) reaches the C as uint64."""
    x = ot.dvector("x")
    big, huge = ot.constant(np.uint64(2**64 - 1)), ot.constant(np.uint64(2**63 + 5))
    f = opkit.function([x], [x[big:], x[:big], x[::big], x[huge::-1], ot.set_subtensor(x[big:], -1.0),
                             ot.inc_subtensor(x[:huge:2], 1.0)], mode=mode)
    assert_matches(f(XV), [XV[2**64 - 1:], XV, XV[:1], XV[::-1], XV, XV + np.array([1.0, 0, 1, 0, 1])])
    with pytest.raises(OverflowError, match="too large to convert to C long"):
        ot.dvector()[huge]


def test_a_zero_constant_step_and_bool_slice_bounds_are_refused():
    x = ot.dvector("x")
    for step in (0, np.uint64(0), np.int8(0)):
        with pytest.raises(ValueError, match=r"slice step cannot be zero \(axis 0\)"):
            x[::step]
    for value in (True, np.bool_(False)):
        # a bool alone is numpy's 0-d mask (a new axis of length 1 or 0: tests/tensor/test_language_indexing.py),
        # never the integer 1 or 0
        assert x[value].type.ndim == 2
        with pytest.raises(TypeError, match=f"slice bound on axis 0 must be an integer, got the bool {value!r}"):
            x[value:]
    with pytest.raises(TypeError, match="index on axis 0 must be an integer or an integer scalar variable"):
        x[ot.tensor(dtype="bool", shape=())]


def test_the_ops_refuse_index_inputs_that_are_not_integer_scalars():
    x = ot.dvector("x")
    for bad in (ot.tensor(dtype="bool", shape=()), ot.dscalar(), ot.lvector()):
        with pytest.raises(TypeError, match=r"Subtensor\{i\}: index input 0 must be a 0-d integer tensor \(int8 to "
                                            r"int64, uint8 to uint64\), got "):
            Subtensor(("int",))(x, bad)
        with pytest.raises(TypeError, match=r"SetSubtensor\{v::\}: index input 0 must be a 0-d integer tensor"):
            IncSubtensor((("slice", True, False, False),), set_instead_of_inc=True)(x, 1.0, bad)
    with pytest.raises(ValueError, match=r"Subtensor\{i, ::\} takes 1 index scalars \(one per integer and per given "
                                         r"slice bound\), got 2"):
        Subtensor(("int", ("slice", False, False, False)))(ot.dmatrix(), ot.lscalar(), ot.lscalar())
    with pytest.raises(IndexError, match="too many indices: 2 given for a 1-d tensor"):
        Subtensor(("int", "int"))(x, ot.lscalar(), ot.lscalar())


# -- the neighbour that reads a length: reshape's target shape (a uint64 once wrapped to -1, "deduce it") ------

@pytest.mark.parametrize("mode", MODES)
def test_a_uint64_reshape_length_beyond_int64_is_refused_never_deduced(mode):
    x, u, uv = ot.dvector("x"), ot.tensor(dtype="uint64", shape=()), ot.tensor(dtype="uint64", shape=(2,))
    f = opkit.function([x, u, uv], [ot.reshape(x, (u, 1)), ot.reshape(x, uv)], mode=mode)
    assert_matches(f(XV, np.uint64(5), np.array([1, 5], "uint64")), [XV.reshape(5, 1), XV.reshape(1, 5)])
    for length, lengths in [(2**64 - 1, [1, 5]), (5, [2**64 - 1, 5]), (2**63, [1, 5]), (5, [1, 2**63])]:
        with pytest.raises(ValueError):  # numpy: ValueError (Maximum allowed dimension exceeded)
            XV.reshape(np.uint64(length), 1) if length != 5 else XV.reshape(np.array(lengths, "uint64"))
        with pytest.raises(ValueError, match=r"reshape: cannot reshape an array of shape \(5,\) \(5 elements\) into "
                                             r"shape \((9223372036854775807, 1|1, 9223372036854775807|"
                                             r"9223372036854775807, 5)\)"):
            f(XV, np.uint64(length), np.array(lengths, "uint64"))


@pytest.mark.parametrize("length", [2**63, 2**64 - 1, np.uint64(2**64 - 1), 2**70, -2**70])
def test_a_constant_reshape_length_beyond_int64_raises_numpy_s_value_error(length):
    with pytest.raises(ValueError):
        XV.reshape(length)
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(5,\) \(5 elements\) into shape "
                                         r"\(-?922337203685477580[78],\)"):
        ot.reshape(ot.tensor(dtype="float64", shape=(5,)), (length,))

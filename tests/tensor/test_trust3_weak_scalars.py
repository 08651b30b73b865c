"""Python numbers next to arrays (NEP 50 "weak" scalars): numpy 2's value, dtype or error, in every mode.

A Python bool/int/float/complex takes the array's dtype; numpy converts it to the
operation's loop dtype and raises OverflowError for an integer that does not fit,
except where a function keeps the integer's meaning: comparisons are exact
(`int8 < 1000`), and np.clip drops a bound beyond an integer array's range.
np.where alone wraps such an integer (numpy issue 27006): opkit's switch raises
OverflowError there instead (checked below as the expected outcome).

The Python (perform) path is checked exhaustively over every dtype, op, order and a
list of numbers of every size, and by a hypothesis property over any integer of
any size and any float; the C path (FAST_RUN) and DebugMode by one compiled graph
each, over the numbers where C could differ (few modules: CI time; the FAST_RUN
graph of the integer dtypes whose C repeats another's is soak).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from opkit.cop.generate.cinterface import op_has_c

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
C_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")

# Every size: fits int8, uint8 only, int16, int32/uint32 edges, int64/uint64 edges, beyond 64 bits, floats
# that overflow float16/float32, non-finite, complex.
NUMBERS = (0, 1, -1, True, False, 2, 127, 128, -128, -129, 255, 256, 2**15, 2**16, -2**31, 2**31, 2**32,
           2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 2**70, -2**70, 10**400,
           0.5, -1.0, 2.0, -2.5, 70000.0, 3.4e38, 1e300, -1e300, float("nan"), float("inf"), float("-inf"),
           1j, 1 + 2j, 1e300j)

BINARY = {
    "add": (np.add, ot.add), "sub": (np.subtract, ot.sub), "mul": (np.multiply, ot.mul),
    "true_div": (np.true_divide, ot.true_div), "pow": (np.power, ot.pow),
    "maximum": (np.maximum, ot.maximum), "minimum": (np.minimum, ot.minimum),
    "lt": (np.less, ot.lt), "le": (np.less_equal, ot.le), "gt": (np.greater, ot.gt),
    "ge": (np.greater_equal, ot.ge), "eq": (np.equal, ot.eq), "neq": (np.not_equal, ot.neq),
    "and_": (np.bitwise_and, ot.and_), "or_": (np.bitwise_or, ot.or_), "xor": (np.bitwise_xor, ot.xor),
}
# The operators build the same ops: checked once each.
OPERATORS = {"+": (np.add, lambda a, b: a + b), "-": (np.subtract, lambda a, b: a - b),
             "*": (np.multiply, lambda a, b: a * b), "/": (np.true_divide, lambda a, b: a / b),
             "**": (np.power, lambda a, b: a ** b), "<": (np.less, lambda a, b: a < b),
             ">=": (np.greater_equal, lambda a, b: a >= b), "&": (np.bitwise_and, lambda a, b: a & b),
             "|": (np.bitwise_or, lambda a, b: a | b), "^": (np.bitwise_xor, lambda a, b: a ^ b)}


def sample(dtype):
    """Values of `dtype` with its extremes, zeros of both signs, inf and nan."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([info.min, 0, 1, 5, info.max], dt)
    values = [-np.inf, -2.5, -0.0, 0.0, 1.0, 3.0, np.nan, np.finfo(dt).max]
    if dt.kind == "c":
        values += [complex(1, -2), complex(np.inf, 1)]
    return np.array(values, dt)


def outcome(compute):
    """("ok", array) or ("raised", exception class) of compute(), warnings silenced as numpy's are here."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return "ok", np.asarray(compute())
    except (TypeError, ValueError, OverflowError) as exc:
        return "raised", type(exc)


def numpy_where(cond, a, b):
    """np.where, except that a Python int the result dtype cannot hold raises (opkit's rule, see top)."""
    result = np.where(cond, a, b)
    for v in (a, b):
        if type(v) is int and result.dtype.kind in "iu":
            info = np.iinfo(result.dtype)
            if not info.min <= v <= info.max:
                raise OverflowError(f"Python integer {v} out of bounds for {result.dtype}")
    return result


def assert_same(got, expected, what):
    assert got[0] == expected[0], f"{what}: opkit {got}, numpy {expected}"
    if got[0] == "raised":
        assert got[1] is expected[1], f"{what}: opkit raised {got[1].__name__}, numpy {expected[1].__name__}"
        return
    g, e = got[1], expected[1]
    assert g.dtype == e.dtype, f"{what}: dtype {g.dtype}, numpy {e.dtype}"
    np.testing.assert_array_equal(g, e, err_msg=what, strict=True)
    if e.dtype.kind in "fc":  # the sign of zero too
        assert np.array_equal(np.signbit(g.real), np.signbit(e.real)), f"{what}: {g} vs numpy {e}"


def run_perform(build, inputs, values):
    f = outcome(lambda: opkit.function(inputs, build(), mode="FAST_COMPILE"))
    if f[0] == "raised":
        return f
    return outcome(lambda: f[1].item()(*values))


def check_binary(name, npf, otf, dtype, number, order):
    a = sample(dtype)
    x = ot.tensor(dtype, (None,), name="x")
    expected = outcome(lambda: npf(a, number) if order == 0 else npf(number, a))
    got = run_perform(lambda: otf(x, number) if order == 0 else otf(number, x), [x], [a])
    assert_same(got, expected, f"{name}({'x, ' if order == 0 else ''}{number!r}{'' if order == 0 else ', x'}) "
                               f"with x {dtype}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_binary_op_with_every_python_number_matches_numpy(dtype):
    for name, (npf, otf) in BINARY.items():
        for number in NUMBERS:
            for order in (0, 1):
                check_binary(name, npf, otf, dtype, number, order)


@pytest.mark.parametrize("dtype", DTYPES)
def test_clip_and_switch_with_every_python_number_match_numpy(dtype):
    a = sample(dtype)
    x = ot.tensor(dtype, (None,), name="x")
    others = (None, 100, -1, 2**70, -2**70, 0.5, float("nan"))
    for number in NUMBERS:
        for other in others:
            for lo, hi in ((number, other), (other, number)):
                if lo is None or hi is None:
                    continue
                expected = outcome(lambda: np.clip(a, lo, hi))
                got = run_perform(lambda: ot.clip(x, lo, hi), [x], [a])
                assert_same(got, expected, f"clip(x, {lo!r}, {hi!r}) with x {dtype}")
        for where in (0, 1):
            def build():
                return ot.switch(x > 0, x, number) if where else ot.switch(x > 0, number, x)
            expected = outcome(lambda: numpy_where(a > 0, a, number) if where else numpy_where(a > 0, number, a))
            assert_same(run_perform(build, [x], [a]), expected, f"switch(x > 0, .., {number!r}) with x {dtype}")


def test_clip_drops_a_bound_beyond_the_range_whatever_the_other_bound():
    """numpy drops the bound (max(x, lo) or min(x, hi)): the other bound may be an array, or beyond."""
    a = np.array([-128, -5, 0, 5, 127], np.int8)
    x = ot.tensor("int8", (None,), name="x")
    lo = ot.tensor("int16", (None,), name="lo")
    for lo_value in (np.full(5, 1000, np.int16), np.full(5, -1000, np.int16), np.arange(5, dtype=np.int16)):
        for hi in (1000, 2**70, 127):
            expected = outcome(lambda: np.clip(a, lo_value, hi))
            got = run_perform(lambda: ot.clip(x, lo, hi), [x, lo], [a, lo_value])
            assert_same(got, expected, f"clip(int8, int16 {lo_value}, {hi})")
    # A Python number as x: numpy makes it an int64 array first.
    for bounds in ((np.zeros(5, np.int8), 2**70), (-2**70, np.full(5, 3, np.int8)), (-1000, 1000)):
        xs = [ot.tensor("int8", (None,), name=f"b{i}") for i, b in enumerate(bounds) if isinstance(b, np.ndarray)]
        it = iter(xs)
        symbolic = [next(it) if isinstance(b, np.ndarray) else b for b in bounds]
        expected = outcome(lambda: np.clip(7, *bounds))
        got = run_perform(lambda: ot.clip(7, *symbolic), xs, [b for b in bounds if isinstance(b, np.ndarray)])
        assert_same(got, expected, f"clip(7, {bounds})")


@pytest.mark.parametrize("symbol", OPERATORS)
def test_operators_take_python_numbers_as_the_functions_do(symbol):
    npf, operator = OPERATORS[symbol]
    for dtype in ("int8", "uint8", "float32"):
        for number in (1000, -1, 2**70, 0.5, 1e300):
            for order in (0, 1):  # 1000 < x is x > 1000, 2 ** x is x.__rpow__(2)...
                check_binary(symbol, npf, operator, dtype, number, order)


def python_numbers():
    ints = st.one_of(st.integers(-2**8, 2**8), st.integers(-2**16, 2**16), st.integers(-2**32, 2**32),
                     st.integers(-2**64, 2**64 + 2), st.integers(-2**100, 2**100),
                     st.sampled_from([2**7, 2**8, 2**15, 2**31, 2**32, 2**63, 2**64, -2**63 - 1, 2**64 - 1]))
    return st.one_of(ints, st.booleans(), st.floats(), st.floats(-1e5, 1e5),
                     st.complex_numbers(max_magnitude=1e300))


@settings(derandomize=True, database=None, max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DTYPES), st.sampled_from(sorted(BINARY) + ["clip_lo", "clip_hi", "switch"]),
       python_numbers(), st.integers(0, 1))
def test_property_any_python_number_any_op_matches_numpy(dtype, name, number, order):
    a = sample(dtype)
    x = ot.tensor(dtype, (None,), name="x")
    if name in BINARY:
        npf, otf = BINARY[name]
        check_binary(name, npf, otf, dtype, number, order)
        return
    if name == "switch":
        expected = outcome(lambda: numpy_where(a > 0, a, number) if order else numpy_where(a > 0, number, a))
        got = run_perform(lambda: ot.switch(x > 0, x, number) if order else ot.switch(x > 0, number, x), [x], [a])
    else:
        other = (5, -1000, 2**70)[order] if name == "clip_lo" else (-5, 1000, -2**70)[order]
        lo, hi = (number, other) if name == "clip_lo" else (other, number)
        expected = outcome(lambda: np.clip(a, lo, hi))
        got = run_perform(lambda: ot.clip(x, lo, hi), [x], [a])
    assert_same(got, expected, f"{name} {number!r} order {order} with x {dtype}")


def _compiled_cases():
    """(label, dtype, opkit builder over the dtype's input, numpy thunk) where C could differ from numpy."""
    cases = []

    def add(label, dtype, build, numpy_thunk):
        cases.append((f"{label} {dtype}", dtype, build, numpy_thunk))

    for dtype in C_DTYPES:
        dt = np.dtype(dtype)
        a = sample(dtype)
        edges = [int(np.iinfo(dt).max) + 1, 2**70, -1] if dt.kind in "iu" else [2**70, -1, 1000]
        for n in edges:  # exact comparisons, by int64/uint64 constants or +-inf
            add(f"lt(x, {n})", dtype, lambda x, n=n: x < n, lambda a=a, n=n: a < n)
            add(f"eq({n}, x)", dtype, lambda x, n=n: ot.eq(n, x), lambda a=a, n=n: np.equal(n, a))
        for lo, hi in ((-1000, 1000), (-1, 100), (0.5, 2**70)):  # dropped bounds
            add(f"clip(x, {lo}, {hi})", dtype, lambda x, lo=lo, hi=hi: ot.clip(x, lo, hi),
                lambda a=a, lo=lo, hi=hi: np.clip(a, lo, hi))
        edge = int(np.iinfo(dt).max) if dt.kind in "iu" else True
        add(f"maximum(x, {edge})", dtype, lambda x, n=edge: ot.maximum(x, n), lambda a=a, n=edge: np.maximum(a, n))
        edge = int(np.iinfo(dt).min) if dt.kind in "iu" else 0.5
        add(f"switch(x > 0, x, {edge})", dtype, lambda x, n=edge: ot.switch(x > 0, x, n),
            lambda a=a, n=edge: np.where(a > 0, a, n))
        if dt.kind == "f":
            for e in (-1, 0, 0.5, 1, 2, 3, 0.25):  # numpy's power fast path for a one-number exponent
                add(f"pow(x, {e})", dtype, lambda x, e=e: x ** e, lambda a=a, e=e: a ** e)
            for e in (-1.0, 0.5):  # the same inside a fused loop
                add(f"pow(x, {e}) * 3 + 1", dtype, lambda x, e=e: ot.pow(x, e) * 3 + 1,
                    lambda a=a, e=e: np.power(a, e) * 3 + 1)
            for n in (1e300, float("nan"), 2**70):  # overflow to inf in float32
                add(f"add(x, {n})", dtype, lambda x, n=n: x + n, lambda a=a, n=n: a + n)
                add(f"maximum(x, {n})", dtype, lambda x, n=n: ot.maximum(x, n), lambda a=a, n=n: np.maximum(a, n))
    return cases


def _compiled_graph(mode, cases, dtypes=C_DTYPES):
    """One function over one input per dtype with every case that numpy computes (the others must raise)."""
    inputs = {d: ot.tensor(d, (None,), name=f"x_{d}") for d in dtypes}
    outputs, kept = [], []
    for label, dtype, build, numpy_thunk in cases:
        expected = outcome(numpy_thunk)
        got = outcome(lambda: build(inputs[dtype]))
        if expected[0] == "raised":
            assert got[0] == "raised" and got[1] is expected[1], f"{label}: opkit built {got}, numpy {expected}"
            continue
        assert got[0] == "ok", f"{label}: opkit raised {got[1]}, numpy gives {expected[1]}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # float32 + 1e300 overflows at build, as in numpy
            outputs.append(build(inputs[dtype]))
        kept.append((label, expected))
    f = opkit.function(list(inputs.values()), outputs, mode=mode, on_unused_input="ignore")
    return f, kept


# The dtypes of the default run's FAST_RUN graph: bool, int8 and int64 (their edges: a constant of int64, and of
# uint64 beyond int64), uint64, float32 and float64. int16, int32, uint8, uint16 and uint32 meet the same C
# comparisons, clip and maximum with constants of their own edges: soak ("FAST_RUN-rest").
FAST_RUN_DTYPES = ("bool", "int8", "int64", "uint64", "float32", "float64")


@pytest.mark.parametrize("mode, dtypes", [
    pytest.param("FAST_RUN", FAST_RUN_DTYPES, id="FAST_RUN"),
    pytest.param("FAST_RUN", tuple(d for d in C_DTYPES if d not in FAST_RUN_DTYPES), id="FAST_RUN-rest",
                 marks=pytest.mark.soak),
    pytest.param("DebugMode", C_DTYPES, id="DebugMode")])
def test_compiled_c_code_gives_numpys_results_for_python_numbers(mode, dtypes):
    cases = [c for c in _compiled_cases() if c[1] in dtypes]
    if mode == "DebugMode":  # DebugMode runs perform and C and compares them: a few cases are enough
        few = {"clip(x, -1000, 1000) int8", "clip(x, -1, 100) uint8", "clip(x, -1000, 1000) uint64",
               "lt(x, 1180591620717411303424) int8", "lt(x, 1180591620717411303424) uint64",
               "lt(x, 1180591620717411303424) float32", "eq(-1, x) uint64", "eq(-1, x) int8",
               "pow(x, 0.5) float32", "pow(x, 0.5) float64", "switch(x > 0, x, -128) int8"}
        cases = [c for c in cases if c[0] in few]
        assert len(cases) == len(few)
    f, kept = _compiled_graph(mode, cases, dtypes)
    if mode == "FAST_RUN":
        nodes = f.maker.fgraph.toposort()
        assert sum(op_has_c(n) for n in nodes) >= len(nodes) // 2, "the graph should mostly run C"
        assert {label.rsplit(" ", 1)[1] for label, _ in kept} == set(dtypes)
    results = f(*[sample(d) for d in dtypes])
    assert len(results) == len(kept) >= (11 if mode == "DebugMode" else 9 * len(dtypes))
    for (label, expected), result in zip(kept, results):
        assert_same(("ok", np.asarray(result)), expected, f"{mode} {label}")


def test_the_errors_name_the_number_and_the_dtype():
    x = ot.tensor("int8", (None,), name="x")
    u = ot.tensor("uint8", (None,), name="u")
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        x + 1000
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        ot.maximum(u, -1)
    with pytest.raises(OverflowError, match=r"Python integer 1000 out of bounds for int8 \(a Python number given "
                                            r"to switch; np.where would wrap it modulo 2\*\*bits"):
        ot.switch(x > 0, x, 1000)
    with pytest.raises(OverflowError, match="Python int too large to convert to C long"):
        x * 2**64
    with pytest.raises(OverflowError, match=r"cannot make a tensor constant from the Python int 1180591620717411303424: "
                                            r"it does not fit int64 or uint64"):
        ot.constant(2**70)
    with pytest.raises(OverflowError, match="neg of Python int 1180591620717411303424: numpy computes this on "
                                            "Python objects"):
        ot.neg(2**70)
    with pytest.raises(OverflowError, match="cannot compare the Python integer 1180591620717411303424 with no "
                                            "integer or float array"):
        ot.lt(2**70, 1)
    # What numpy accepts stays accepted: exact comparisons, clip dropping its bounds.
    assert opkit.function([x], [x < 1000, ot.clip(x, -1000, 1000)])(np.array([-128, 127], np.int8))[1].dtype == np.int8


def test_op_compute_takes_python_numbers_as_numpy_does():
    """op.compute(array, number): the number is weak there too (np.add(int8, 5) is int8), in C."""
    from opkit.core.tensor.elementwise.elemwise_math import _clip

    a = np.array([-128, -5, 0, 5, 127], np.int8)
    u = np.array([0, 1, 255], np.uint8)
    f = np.array([-np.inf, -0.0, 4.0], np.float32)
    cases = [(ot.add, np.add, (a, 5)), (ot.add, np.add, (5, a)), (ot.add, np.add, (a, 1000)),
             (ot.lt, np.less, (a, 1000)), (ot.lt, np.less, (a, 2**70)), (ot.eq, np.equal, (u, -1)),
             (ot.maximum, np.maximum, (u, -1)), (ot.mul, np.multiply, (a, 0.5)), (ot.pow, np.power, (f, 0.5)),
             (ot.add, np.add, (a, 2**70)), (_clip, np.clip, (a, -1000, 1000)), (_clip, np.clip, (u, -1, 100)),
             (_clip, np.clip, (a, 0, 2**70)), (ot.add, np.add, (2, 3))]
    for op, npf, values in cases:
        expected = outcome(lambda: npf(*values))
        got = outcome(lambda: op.compute(*values))
        assert_same(got, expected, f"{op}.compute{values}")
    assert ot.add.compute(a, 5).dtype == np.int8  # again: not served an int64 function by the memo

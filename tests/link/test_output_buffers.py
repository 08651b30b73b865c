"""Output buffers: a compiled function reuses its last output when nothing else holds it, and
writes into the caller's arrays with out= (templates/module.cpp.j2, opkit/link/out_buffers.py).

The rule under test: one buffer is never behind two live results. Every value a test keeps is
checked against numpy after later calls, which would have overwritten a shared buffer.
"""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opkit
import opkit.tensor as ot
from helpers.tutorial_ops import DoubleOp

A, B, C = np.arange(6.0), np.linspace(-1, 1, 6), np.full(6, 0.5)


def expected(a, b, c):
    return (a * b + c) * 2 - a


@pytest.fixture(scope="module")
def f3():
    x, y, z = ot.dvector("x"), ot.dvector("y"), ot.dvector("z")
    return opkit.function([x, y, z], (x * y + z) * 2 - x)


def address(array):
    return array.__array_interface__["data"][0]


def test_kept_result_is_not_reused(f3):
    first = f3(A, B, C)
    second = f3(A + 1, B, C)
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, expected(A, B, C))
    np.testing.assert_array_equal(second, expected(A + 1, B, C))


def test_dropped_result_is_reused(f3):
    f3(A, B, C)  # dropped at once
    kept = f3(A, B, C)
    where = address(kept)
    del kept
    again = f3(A + 2, B, C)
    assert address(again) == where  # the buffer of the dropped result, written again
    np.testing.assert_array_equal(again, expected(A + 2, B, C))


@pytest.mark.parametrize("make_view", [lambda r: r[1:], lambda r: r.reshape(2, 3), lambda r: r.view(),
                                       lambda r: memoryview(r), lambda r: np.frombuffer(r, dtype=r.dtype)])
def test_a_live_view_keeps_its_buffer(f3, make_view):
    result = f3(A, B, C)
    view = make_view(result)
    del result
    other = f3(A * 3, B, C)
    np.testing.assert_array_equal(np.asarray(view).ravel()[-5:], expected(A, B, C)[-5:])
    np.testing.assert_array_equal(other, expected(A * 3, B, C))


def test_result_passed_back_as_input(f3):
    r = f3(A, B, C)
    r = f3(r, B, C)  # the kept output is an argument of this call: it must not be written
    np.testing.assert_array_equal(r, expected(expected(A, B, C), B, C))
    nested = f3(f3(A, B, C), B, C)
    np.testing.assert_array_equal(nested, expected(expected(A, B, C), B, C))


def test_several_outputs_and_one_returned_twice():
    x, y = ot.dvectors("x", "y")
    s = x + y
    f = opkit.function([x, y], [s, x * y, s])
    first = f(A, B)
    second = f(A + 1, B)
    live = list(first) + list(second)
    for k, array in enumerate(live):
        for other in live[k + 1:]:
            assert not np.shares_memory(array, other)
    for (a, out) in ((A, first), (A + 1, second)):
        np.testing.assert_array_equal(out[0], a + B)
        np.testing.assert_array_equal(out[1], a * B)
        np.testing.assert_array_equal(out[2], a + B)


def test_outputs_that_alias_inputs_or_each_other():
    x = ot.dvector("x")
    f = opkit.function([x], [x, x[1:], ot.exp(x * 2), (x * 2)[::-1]])
    a = A.copy()
    first = f(a)
    del first[2]
    second = f(a)
    assert not np.shares_memory(first[0], a) and not np.shares_memory(second[1], a)
    np.testing.assert_array_equal(first[1], A[1:])
    np.testing.assert_array_equal(second[2], np.exp(A * 2))
    np.testing.assert_array_equal(second[3], (A * 2)[::-1])
    np.testing.assert_array_equal(a, A)


def test_outputs_over_intermediates():
    """A dot's output (its own memory) is reused once dropped; outputs that update or view an intermediate
    are reused through that intermediate: kept ones never change."""
    a, b = ot.dmatrices("a", "b")
    f = opkit.function([a, b], [ot.exp(ot.dot(a, b)), ot.dot(a, b).T, ot.dot(b, a)])
    rng = np.random.default_rng(3)
    values = [(rng.standard_normal((4, 4)), rng.standard_normal((4, 4))) for _ in range(4)]

    def want(x, y):
        return [np.exp(x @ y), (x @ y).T, y @ x]

    kept = f(*values[0])
    f(*values[1])
    third = f(*values[2])
    where = [address(r) for r in third]
    del third
    last = f(*values[3])
    assert address(last[2]) == where[2]
    for got, (x, y) in ((kept, values[0]), (last, values[3])):
        for array, expected_array in zip(got, want(x, y)):
            np.testing.assert_allclose(array, expected_array, rtol=1e-12)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "DebugMode", opkit.Mode(linker="cop")])
def test_modes(mode):
    x, y = ot.dvectors("x", "y")
    f = opkit.function([x, y], [x * y + 1, ot.exp(x)], mode=mode)
    kept = f(A, B)
    f(A + 1, B)
    again = f(A + 2, B)
    np.testing.assert_array_equal(kept[0], A * B + 1)
    np.testing.assert_array_equal(again[0], (A + 2) * B + 1)
    np.testing.assert_allclose(again[1], np.exp(A + 2))
    buffers = np.empty(6), np.empty(6)
    done = f(A, B, out=buffers)
    assert done[0] is buffers[0] and done[1] is buffers[1]
    np.testing.assert_array_equal(buffers[0], A * B + 1)
    np.testing.assert_allclose(buffers[1], np.exp(A))


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]


@pytest.fixture(scope="module")
def every_dtype():
    """One function (one module) of x * y for every dtype: output k is the product of two DTYPES[k] vectors."""
    pairs = [(ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)) for dtype in DTYPES]
    return opkit.function([v for pair in pairs for v in pair], [x * y for x, y in pairs])


@pytest.mark.parametrize("size", [0, 1, 7])
def test_every_dtype_and_empty(every_dtype, size):
    f = every_dtype
    rng = np.random.default_rng(size)
    # each call's arguments: x and y of DTYPES[0], x and y of DTYPES[1], ...
    values = [[rng.integers(0, 3, size).astype(dtype) for dtype in DTYPES for _ in "xy"] for _ in range(3)]

    def products(arguments):
        return [x * y for x, y in zip(arguments[0::2], arguments[1::2])]

    kept = f(*values[0])
    f(*values[1])  # dropped: its buffers are the next call's
    last = f(*values[2])
    for dtype, got, want in zip(DTYPES, kept, products(values[0])):
        np.testing.assert_array_equal(got, want, err_msg=dtype)
    for dtype, got, want in zip(DTYPES, last, products(values[2])):
        np.testing.assert_array_equal(got, want, err_msg=dtype)
        assert got.dtype == np.dtype(dtype)
    out = [np.empty(size, dtype) for dtype in DTYPES]
    done = f(*values[1], out=out)
    assert len(done) == len(DTYPES) and all(got is buffer for got, buffer in zip(done, out))
    for dtype, buffer, want in zip(DTYPES, out, products(values[1])):
        np.testing.assert_array_equal(buffer, want, err_msg=dtype)


def test_threads_never_share_a_buffer(f3):
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        kept = []
        try:
            for step in range(200):
                a = rng.standard_normal(1000)
                result = f3(a, a, a)
                if step % 3 == 0:
                    kept.append((a, result))
                for old_a, old in kept[-5:]:
                    if not np.array_equal(old, expected(old_a, old_a, old_a)):
                        failures.append(f"thread {seed}: a kept result changed")
                        return
        except Exception as exc:  # noqa: BLE001 (reported below)
            failures.append(repr(exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["keep", "drop", "view", "release", "out"]), min_size=1, max_size=12))
def test_any_sequence_of_calls(f3, actions):
    live = []  # (expected values, the array or view a user holds)
    for step, action in enumerate(actions):
        a = A + step
        want = expected(a, B, C)
        if action == "out":
            buffer = np.empty(6)
            assert f3(a, B, C, out=buffer) is buffer
            live.append((want, buffer))
            continue
        result = f3(a, B, C)
        np.testing.assert_array_equal(result, want)
        if action == "keep":
            live.append((want, result))
        elif action == "view":
            live.append((want[2:], result[2:]))
        elif action == "release" and live:
            live.pop(0)
        del result
        for values, array in live:
            np.testing.assert_array_equal(array, values)


def test_eager_compute_results_stay():
    a, b = np.arange(4.0), np.full(4, 3.0)
    first = ot.mul.compute(a, b)
    second = ot.mul.compute(a + 1, b)
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, a * b)
    np.testing.assert_array_equal(second, (a + 1) * b)


# ---- out= ----

def test_out_writes_and_returns_the_array(f3):
    buffer = np.empty(6)
    assert f3(A, B, C, out=buffer) is buffer
    np.testing.assert_array_equal(buffer, expected(A, B, C))
    assert f3(A, B, C, out=(buffer,)) is buffer
    x = ot.dvector("x")
    wrapped = opkit.function([x], [x * 2])  # a list of one output
    result = wrapped(A, out=[buffer])
    assert isinstance(result, list) and result[0] is buffer
    np.testing.assert_array_equal(buffer, A * 2)


def test_out_does_not_disturb_the_kept_buffer(f3):
    kept = f3(A, B, C)
    buffer = np.empty(6)
    f3(A + 1, B, C, out=buffer)
    np.testing.assert_array_equal(kept, expected(A, B, C))
    fresh = f3(A + 2, B, C)
    assert not np.shares_memory(fresh, buffer)
    np.testing.assert_array_equal(buffer, expected(A + 1, B, C))


def test_out_with_none_and_several_outputs():
    x, y = ot.dvectors("x", "y")
    f = opkit.function([x, y], [x + y, x * y])
    first = np.empty(6)
    result = f(A, B, out=(first, None))
    assert result[0] is first and not np.shares_memory(result[1], first)
    np.testing.assert_array_equal(result[1], A * B)
    np.testing.assert_array_equal(first, A + B)


def test_out_through_python_nodes():
    x = ot.dvector("x")
    f = opkit.function([x], DoubleOp()(ot.exp(x)) + 1)  # DoubleOp has perform only: several regions, out= copies
    buffer = np.empty(6)
    assert f(A, out=buffer) is buffer
    np.testing.assert_allclose(buffer, np.exp(A) * 2 + 1)
    with pytest.raises(ValueError, match=r"out\[0\] has shape \(5,\), but output 0 has shape \(6,\)"):
        f(A, out=np.empty(5))


def test_an_input_named_out_keeps_the_keyword():
    out, y = ot.dvector("out"), ot.dvector("y")
    f = opkit.function([out, y], out + y)
    np.testing.assert_array_equal(f(y=B, out=A), A + B)


@pytest.mark.parametrize("bad, error, message", [
    (np.empty(6, np.float32), TypeError, r"out\[0\] has dtype float32, but output 0 is float64"),
    (np.empty((6, 1)), ValueError, r"out\[0\] has 2 dimension\(s\), but output 0 has 1"),
    (np.empty(12)[::2], ValueError, r"out\[0\] is not C-contiguous"),
    (np.empty(5), ValueError, r"out\[0\] has shape \(5,\), but output 0 has shape \(6,\)"),
    ([1.0] * 6, ValueError, r"has 1 output\(s\), but out= gives 6 array\(s\)"),
    ("buffer", TypeError, r"out\[0\] is a str, not a numpy array"),
    (np.empty(6).astype(">f8"), TypeError, r"out\[0\] has dtype >f8"),
])
def test_out_errors(f3, bad, error, message):
    with pytest.raises(error, match=message):
        f3(A, B, C, out=bad)


def test_out_read_only_and_overlapping(f3):
    frozen = np.empty(6)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"out\[0\] is read-only"):
        f3(A, B, C, out=frozen)
    a = A.copy()
    with pytest.raises(ValueError, match=r"out\[0\] may share memory with input 0"):
        f3(a, B, C, out=a)
    np.testing.assert_array_equal(a, A)
    x, y = ot.dvectors("x", "y")
    g = opkit.function([x, y], [x + y, x * y])
    both = np.empty(12)
    with pytest.raises(ValueError, match=r"out\[0\] and out\[1\] may share memory"):
        g(A, B, out=(both[:6], both[3:9]))
    with pytest.raises(TypeError, match=r"has 2 outputs: pass out=\(array_0, array_1\)"):
        g(A, B, out=np.empty(6))


def test_out_with_a_shared_variable():
    s = opkit.shared(np.ones(6), name="s")
    x = ot.dvector("x")
    f = opkit.function([x], x + s)
    with pytest.raises(ValueError, match="may share memory with shared variable s"):
        f(A, out=s.get_value(borrow=True))
    buffer = np.empty(6)
    assert f(A, out=buffer) is buffer
    np.testing.assert_array_equal(buffer, A + 1)


def test_out_on_a_scalar_output():
    x = ot.dvector("x")
    f = opkit.function([x], [x * 2, x.shape[0]])
    with pytest.raises(TypeError, match=r"out\[1\] has dtype float64, but output 1 is int64"):
        f(A, out=(None, np.empty(())))
    length = np.empty((), "int64")
    result = f(A, out=(None, length))
    assert result[1] is length and length == 6

"""function(..., updates=, givens=) in every linker: shared values read, updated all at once, replaced."""

import gc
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from helpers.trust_ops import LINKER_MODES

import opkit
import opkit.tensor as ot
from opkit.core.builtin_ops import ViewOp

ALL_MODES = {**LINKER_MODES, "DebugMode": "DebugMode"}
MODES = pytest.mark.parametrize("mode", list(ALL_MODES.values()), ids=list(ALL_MODES))


@MODES
def test_a_counter_over_100_calls(mode):
    c = opkit.shared(0, name="c")
    f = opkit.function([], c, updates={c: c + 1}, mode=mode)
    seen = [int(f()) for _ in range(100)]
    assert seen == list(range(100))  # each call returns the value before its update
    assert c.get_value() == 100


@MODES
def test_updates_are_stored_all_at_once_after_every_output(mode):
    a, b = opkit.shared(np.arange(3.0), name="a"), opkit.shared(np.full(3, 7.0), name="b")
    f = opkit.function([], [a + b, a * b], updates={a: b, b: a}, mode=mode)  # a swap
    total, product = f()  # the outputs see the old values
    np.testing.assert_array_equal(total, np.arange(3.0) + 7)
    np.testing.assert_array_equal(product, np.arange(3.0) * 7)
    np.testing.assert_array_equal(a.get_value(), np.full(3, 7.0))
    np.testing.assert_array_equal(b.get_value(), np.arange(3.0))
    assert not np.shares_memory(a.get_value(borrow=True), b.get_value(borrow=True))
    f()
    np.testing.assert_array_equal(a.get_value(), np.arange(3.0))
    np.testing.assert_array_equal(b.get_value(), np.full(3, 7.0))


@pytest.fixture(scope="module", params=list(ALL_MODES), ids=list(ALL_MODES))
def stateful(request):
    """(f, s, last): f(x) returns [s * x, s, a view of s, s + x], updates s to s + x and last to x."""
    s, last = opkit.shared(np.zeros(3), name="s"), opkit.shared(np.zeros(3), name="last")
    x = ot.dvector("x")
    f = opkit.function([x], [s * x, s, ViewOp()(s), s + x], updates={s: s + x, last: x},
                       mode=ALL_MODES[request.param])
    return f, s, last


def test_set_value_between_calls_is_seen_by_the_next_call(stateful):
    f, s, last = stateful
    s.set_value(np.zeros(3))
    np.testing.assert_array_equal(f(np.ones(3))[0], np.zeros(3))
    s.set_value(np.arange(5.0))  # another array, another shape: the module keeps no pointer to the old one
    np.testing.assert_array_equal(f(np.full(5, 2.0))[0], np.arange(5.0) * 2)
    np.testing.assert_array_equal(s.get_value(), np.arange(5.0) + 2)
    borrowed = np.arange(4.0)[::-1]  # a reversed view, borrowed: read as it is at the call
    s.set_value(borrowed, borrow=True)
    np.testing.assert_array_equal(f(np.ones(4))[0], [3.0, 2.0, 1.0, 0.0])
    np.testing.assert_array_equal(borrowed, [3.0, 2.0, 1.0, 0.0])  # the update stored a new array
    np.testing.assert_array_equal(s.get_value(), [4.0, 3.0, 2.0, 1.0])


def test_an_update_to_a_shared_variable_the_outputs_do_not_read(stateful):
    f, s, last = stateful
    s.set_value(np.zeros(2))
    value = np.array([1.0, 2.0])
    f(value)
    np.testing.assert_array_equal(last.get_value(), value)
    assert not np.shares_memory(last.get_value(borrow=True), value)  # the caller's array is not kept


def test_no_reference_to_an_old_value_is_kept(stateful):
    f, s, last = stateful
    s.set_value(np.zeros(4))
    f(np.ones(4))
    old = s.get_value(borrow=True)
    gone = weakref.ref(old)
    del old
    f(np.ones(4))
    replaced = s.get_value(borrow=True)
    s.set_value(np.zeros(2))
    gone_too = weakref.ref(replaced)
    del replaced
    gc.collect()
    assert gone() is None and gone_too() is None


def test_results_never_alias_a_shared_value(stateful):
    f, s, last = stateful
    s.set_value(np.zeros(3))
    x = np.ones(3)
    product, same, view, plus = f(x)
    for result in (product, same, view, plus):
        assert not np.shares_memory(result, s.get_value(borrow=True))
        assert not np.shares_memory(result, last.get_value(borrow=True))
    plus[:] = 50  # the returned s + x is not the stored update s + x
    same[:] = 60
    view[:] = 70
    np.testing.assert_array_equal(s.get_value(), np.ones(3))
    internal = s.get_value(borrow=True)
    f(x)
    np.testing.assert_array_equal(internal, np.ones(3))  # a borrowed value is never written by a call
    np.testing.assert_array_equal(s.get_value(), np.full(3, 2.0))


def test_a_failed_call_stores_no_update(stateful):
    f, s, last = stateful
    s.set_value(np.zeros(2))
    last.set_value(np.zeros(2))
    with pytest.raises(ValueError):
        f(np.ones(3))  # shapes (2,) and (3,) do not broadcast
    np.testing.assert_array_equal(s.get_value(), np.zeros(2))
    np.testing.assert_array_equal(last.get_value(), np.zeros(2))
    f(np.ones(2))
    np.testing.assert_array_equal(s.get_value(), np.ones(2))


DTYPES = ["int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "complex128"]


@pytest.mark.parametrize("mode", ["c", "py"])
def test_accumulators_of_every_dtype(mode):
    rng = np.random.default_rng(1)
    accs = [opkit.shared(np.zeros(6, dtype=dtype), name=f"acc_{dtype}") for dtype in DTYPES]
    xs = [ot.vector(f"x_{dtype}", dtype=dtype) for dtype in DTYPES]
    f = opkit.function(xs, [], updates={acc: acc + x for acc, x in zip(accs, xs)}, mode=ALL_MODES[mode])
    expected = [np.zeros(6, dtype=dtype) for dtype in DTYPES]
    for _ in range(5):
        values = [rng.integers(0, 20, 6).astype(dtype) for dtype in DTYPES]
        f(*values)
        expected = [e + v for e, v in zip(expected, values)]
    for acc, dtype, want in zip(accs, DTYPES, expected):
        assert acc.get_value().dtype == np.dtype(dtype)
        np.testing.assert_array_equal(acc.get_value(), want)


@pytest.mark.parametrize("mode", ["c", "FAST_COMPILE"])
def test_gradient_descent_on_a_shared_weight(mode):
    rng = np.random.default_rng(2)
    data, w_true = rng.standard_normal((20, 3)), np.array([1.0, -2.0, 0.5])
    w = opkit.shared(np.zeros(3), name="w")
    x, y = ot.dmatrix("x"), ot.dvector("y")
    error = ot.dot(x, w) - y
    cost = (error * error).sum() / 20.0
    step = opkit.function([x, y], cost, updates={w: w - 0.1 * opkit.grad(cost, w)}, mode=ALL_MODES[mode])
    expected = np.zeros(3)
    for _ in range(30):
        np.testing.assert_allclose(step(data, data @ w_true), ((data @ expected - data @ w_true) ** 2).mean())
        expected = expected - 0.1 * 2 * data.T @ (data @ expected - data @ w_true) / 20
    np.testing.assert_allclose(w.get_value(), expected)


@pytest.mark.parametrize("mode", ["c", "py"])
def test_givens_replace_variables_and_shared_variables(mode):
    x, y = ot.dvector("x"), ot.dvector("y")
    data = opkit.shared(np.arange(3.0), name="data")
    scale = opkit.shared(2.0, name="scale")
    total = opkit.shared(0.0, name="total")
    f = opkit.function([y], x * scale + y, updates={total: total + x.sum()},
                       givens={x: data * 10.0, scale: ot.sum(y)}, mode=ALL_MODES[mode])
    np.testing.assert_array_equal(f(np.ones(3)), np.arange(3.0) * 10 * 3 + 1)
    assert total.get_value() == 30.0  # the givens apply to the updates too
    data.set_value(np.ones(3))
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 31.0))
    assert total.get_value() == 60.0 and scale.get_value() == 2.0
    g = opkit.function([], x + data, givens=[(x, np.array([5.0, 6.0, 7.0]))], mode=ALL_MODES[mode])  # a constant
    np.testing.assert_array_equal(g(), [6.0, 7.0, 8.0])


def test_clones_of_a_shared_variable_are_one_value():
    c = opkit.shared(1.0, name="c")
    twin = c.clone()
    f = opkit.function([], c + twin, updates={twin: c * 3}, mode="FAST_COMPILE")
    assert f() == 2.0 and c.get_value() == 3.0
    assert len(f.maker.plan.shared) == 1


@pytest.fixture(scope="module")
def halving():
    """(f, s): in the C linker, f(x) returns s - x and stores s * 0.5 + x (s a float64 matrix)."""
    s = opkit.shared(np.zeros((2, 2)), name="s")
    x = ot.dmatrix("x")
    return opkit.function([x], s - x, updates={s: s * 0.5 + x}), s


def odd_layout(values, layout):
    """Return `values` (a 2-d array) as an array with the same contents in another memory layout."""
    if layout == "fortran":
        return np.asfortranarray(values)
    if layout == "reversed":
        return np.ascontiguousarray(values[::-1, ::-1])[::-1, ::-1]
    if layout == "strided":
        wide = np.zeros((values.shape[0], 2 * values.shape[1]))
        wide[:, ::2] = values
        return wide[:, ::2]
    return values


LAYOUTS = ["c", "fortran", "reversed", "strided"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["call", "set", "set_borrowed"]), st.sampled_from(LAYOUTS),
                                st.integers(0, 3), st.integers(0, 3), st.integers(0, 2**31)), max_size=8))
def test_calls_and_set_value_in_any_order_match_numpy(halving, steps):
    f, s = halving
    state = np.zeros((2, 2))
    s.set_value(state)
    for action, layout, rows, cols, seed in steps:
        rng = np.random.default_rng(seed)
        if action == "call":
            x = odd_layout(rng.standard_normal(state.shape), layout)
            np.testing.assert_allclose(f(x), state - x, rtol=1e-12, atol=1e-12)
            state = state * 0.5 + x  # C may contract this into a fused multiply-add: compare to 1e-12
        else:
            state = rng.standard_normal((rows, cols))
            s.set_value(odd_layout(state.copy(), layout), borrow=action == "set_borrowed")
        np.testing.assert_allclose(s.get_value(), state, rtol=1e-12, atol=1e-12)

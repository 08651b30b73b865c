"""Compiled functions called from 8 threads at once, and re-entered from inside themselves."""

import threading

import numpy as np
import pytest
from helpers.trust_ops import LINKER_MODES, CallsBack, FailsSilently, PyTimesThree, SlowScaleNoGil

import opkit
import opkit.tensor as ot

MODES = pytest.mark.parametrize("mode", list(LINKER_MODES.values()), ids=list(LINKER_MODES))
THREADS, CALLS = 8, 60


def hammer(f, expected_of, size=257):
    """Call f from THREADS threads at once, each on its own inputs; return the wrong results seen."""
    wrong, start = [], threading.Barrier(THREADS)

    def work(seed):
        rng = np.random.default_rng(seed)
        start.wait()
        for _ in range(CALLS):
            value = rng.standard_normal(size)
            result = f(value)
            if not np.allclose(result, expected_of(value)):
                wrong.append(seed)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return wrong


@MODES
def test_a_graph_all_in_c(mode):
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(x) * 2 + x, mode=mode)
    assert hammer(f, lambda v: np.exp(v) * 2 + v) == []


@MODES
def test_a_graph_mixing_python_and_c(mode):
    x = ot.dvector("x")
    f = opkit.function([x], ot.exp(PyTimesThree()(ot.sqr(x))) - x, mode=mode)
    assert hammer(f, lambda v: np.exp(3 * v * v) - v) == []


@MODES
def test_a_c_op_that_releases_the_gil_feeding_exp(mode):
    x = ot.dvector("x")
    f = opkit.function([x], [ot.exp(SlowScaleNoGil()(x)), SlowScaleNoGil()(ot.exp(x))], mode=mode)
    assert hammer(lambda v: np.stack(f(v)), lambda v: np.stack([np.exp(2 * v), 2 * np.exp(v)]), size=4001) == []


@MODES
def test_a_python_op_may_call_the_function_it_is_part_of(mode):
    x = ot.dvector("x")
    y = x * 2.0
    f = opkit.function([x], CallsBack()(y) + y, mode=mode)  # y is read again after the inner call

    def expected(v):
        y = v * 2.0
        inner = expected(y[1:]) if len(v) > 1 else np.zeros(0)  # perform calls f on its input, y
        return np.concatenate([y[:1] + 100, inner + 1000]) + y

    CallsBack.function = f
    try:
        result = f(np.arange(4.0))
    finally:
        CallsBack.function = None
    np.testing.assert_array_equal(result, expected(np.arange(4.0)))


@pytest.mark.parametrize("mode", ["c", "cop"])
def test_c_that_fails_without_an_exception_names_the_node(mode):
    x = ot.dvector("x")
    f = opkit.function([x], FailsSilently()(x) * 2, mode=opkit.Mode(linker=mode))
    with pytest.raises(RuntimeError, match="without setting a Python exception") as info:
        f(np.ones(2))
    assert "FailsSilently" in str(info.value)
    assert "PyErr_SetString" in str(info.value)

"""In the C linker, shared values and updates stay in the module: f() is one C call, also from many threads."""

import sys
import threading

import numpy as np
import pytest
from helpers.trust_ops import LINKER_MODES, PyTimesThree, SlowScaleNoGil

import opkit
import opkit.tensor as ot
from opkit.core.graph import Apply
from opkit.core.op import Op


def python_calls_during(call, *args):
    """Return the names of the Python functions that run while `call(*args)` runs (sys.setprofile 'call' events)."""
    seen = []

    def profile(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call(*args)
    finally:
        sys.setprofile(None)
    return seen


@pytest.fixture
def accumulate():
    """(f, c): f(x) returns c * 2 and stores c + x, in the C linker."""
    c = opkit.shared(np.zeros(3), name="c")
    x = ot.dvector("x")
    return opkit.function([x], c * 2, updates={c: c + x}), c


def test_a_call_with_updates_runs_no_python_in_the_c_linker(accumulate):
    f, c = accumulate
    # The call path is the compiled module's Runner, not a Python wrapper around it.
    assert type(f._runner).__name__ == "Runner" and not callable(getattr(f._runner, "__code__", None))
    value = np.ones(3)
    assert python_calls_during(f, value) == []
    f.trust_input = True
    assert python_calls_during(f, value) == []
    np.testing.assert_array_equal(c.get_value(), np.full(3, 2.0))


def test_the_check_sees_the_python_wrapper_of_other_linkers():
    c = opkit.shared(np.zeros(3), name="c")
    x = ot.dvector("x")
    f = opkit.function([x], c * 2, updates={c: c + x}, mode="FAST_COMPILE")
    assert "run" in python_calls_during(f, np.ones(3))


def test_a_graph_split_by_a_python_op_stores_its_updates_through_python():
    c = opkit.shared(np.ones(3), name="c")
    f = opkit.function([], c, updates={c: ot.exp(PyTimesThree()(c)) * 0 + c + 1})
    assert [float(f()[0]) for _ in range(3)] == [1.0, 2.0, 3.0]


THREADS, CALLS = 8, 40
MODES = pytest.mark.parametrize("mode", list(LINKER_MODES.values()), ids=list(LINKER_MODES))


@MODES
def test_concurrent_calls_lose_no_update(mode):
    # SlowScaleNoGil releases the GIL between reading c and storing c + 1: without the function's
    # lock, two threads would read the same c and one increment would be lost.
    c = opkit.shared(np.zeros(2001), name="c")
    f = opkit.function([], [], updates={c: c + SlowScaleNoGil()(c * 0.0 + 0.5)}, mode=mode)
    start = threading.Barrier(THREADS)

    def work():
        start.wait()
        for _ in range(CALLS):
            f()

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    np.testing.assert_array_equal(c.get_value(), np.full(2001, float(THREADS * CALLS)))


class CallsBackFromC(Op):
    """C code that calls `CallsBackFromC.callback(x)` (Python) and returns x + 1: a C graph re-entered."""

    __props__ = ()
    callback = None

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""
        {{
        PyObject* module = PyImport_ImportModule("{__name__}");
        PyObject* op = module ? PyObject_GetAttrString(module, "CallsBackFromC") : NULL;
        PyObject* done = op ? PyObject_CallMethod(op, "run_callback", "O", (PyObject*){x}) : NULL;
        Py_XDECREF(module);
        Py_XDECREF(op);
        if (!done) {sub['fail']}
        Py_DECREF(done);
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewCopy({x}, NPY_ANYORDER);
        if (!{z}) {sub['fail']}
        double* data = (double*)PyArray_DATA({z});
        for (npy_intp i = 0; i < PyArray_SIZE({z}); ++i) data[i] += 1.0;
        }}
        """

    @classmethod
    def run_callback(cls, x):
        if cls.callback is not None:
            cls.callback(x)


def test_a_c_graph_with_updates_may_be_called_from_inside_its_own_call():
    c = opkit.shared(0.0, name="c")
    f = opkit.function([], c, updates={c: CallsBackFromC()(c)})
    assert type(f._runner).__name__ == "Runner"
    inner, depth = [], []

    def callback(x):
        if not depth:
            depth.append(1)
            inner.append(float(f()))  # same thread, lock held: the call goes on instead of waiting forever

    CallsBackFromC.callback = callback
    try:
        outer = threading.Thread(target=lambda: inner.append(float(f())), daemon=True)
        outer.start()
        outer.join(timeout=120)
        assert not outer.is_alive(), "a re-entrant call waited for its own lock"
    finally:
        CallsBackFromC.callback = None
    assert inner == [0.0, 0.0]  # both calls read c = 0 before either stored its update
    assert c.get_value() == 1.0  # the outer call stores last


def test_a_module_made_with_a_bad_cell_is_refused(accumulate):
    f, c = accumulate
    module = sys.modules[type(f._runner).__module__]
    notes = ("",) * 16
    with pytest.raises(TypeError, match="one-item list"):
        module.make(notes, np.asarray(2.0), [])
    with pytest.raises(TypeError, match="1 shared cells"):
        module.make(notes)


def test_a_cell_emptied_behind_opkits_back_is_a_type_error_not_a_crash(accumulate):
    f, c = accumulate
    c.container.storage.clear()
    with pytest.raises(TypeError, match=r"shared variable c"):
        f(np.ones(3))
    assert c.container.storage == []  # nothing stored by the failed call
    c.container.storage.append(np.ones(3))
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    np.testing.assert_array_equal(c.get_value(), np.full(3, 2.0))


def test_a_module_with_constants_params_and_shared_cells():
    from helpers.params_ops import AxpyCode

    s, t = opkit.shared(np.ones(3), name="s"), opkit.shared(np.full(3, 2.0), name="t")
    x = ot.dvector("x")
    f = opkit.function([x], AxpyCode(3.0, "MUL")(s, t) + 10.0, updates={s: AxpyCode(0.5, "ADD")(s, x) + 1.0,
                                                                         t: t * 2.0}, mode="FAST_RUN")
    assert type(f._runner).__name__ == "Runner"
    sv, tv = np.ones(3), np.full(3, 2.0)
    for step in range(4):
        value = np.arange(3.0) + step
        np.testing.assert_array_equal(f(value), 3.0 * sv * tv + 10.0)
        sv, tv = 0.5 * sv + value + 1.0, tv * 2.0
    np.testing.assert_array_equal(s.get_value(), sv)
    np.testing.assert_array_equal(t.get_value(), tv)


def test_without_a_compiler_the_python_fallback_stores_the_updates(recwarn):
    from opkit.cop.toolchain import compiler

    c = opkit.shared(0.0, name="c")
    with opkit.config.change_flags(cxx="/nonexistent/g++", python_fallback=True):
        compiler._found.clear()
        try:
            f = opkit.function([], c, updates={c: c + 1})
        finally:
            compiler._found.clear()
    assert [float(f()) for _ in range(3)] == [0.0, 1.0, 2.0] and c.get_value() == 3.0
    assert [str(w.message)[:9] for w in recwarn.list if w.category is RuntimeWarning] == ["no C++ co"]

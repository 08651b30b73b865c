"""op.compute follows the module cache's content identity, and its memos are bounded (issue 22, items 6 and 9)."""

import importlib
import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.store.cache import module_events
from opkit.core.op import EAGER_MEMO
from opkit.link import eager

from conftest import ROOT
from helpers.section_ops import _times_op

EXAMPLE_C = ROOT / "examples" / "vector_times_vector" / "vector_times_vector" / "vectorTimesVector.c"
PARAMS_DATA = pathlib.Path(__file__).parents[1] / "data" / "params"


def test_editing_the_c_file_then_creating_the_op_again_runs_the_new_code_in_compute_and_function(tmp_path):
    c_file = tmp_path / "op.c"
    c_file.write_text(EXAMPLE_C.read_text())
    op_class = _times_op(c_file)
    a, b = np.arange(1.0, 6.0), np.full(5, 10.0)
    old = op_class()
    np.testing.assert_array_equal(old.compute(a, b), a * b)
    x, y = ot.dvector("x"), ot.dvector("y")
    old_token = opkit.function([x, y], old(x, y)).__dask_tokenize__()

    text = c_file.read_text()
    assert "x_ptr[i * x_str] * y_ptr[i * y_str]" in text
    c_file.write_text(text.replace("x_ptr[i * x_str] * y_ptr[i * y_str]", "x_ptr[i * x_str] + y_ptr[i * y_str]"))
    new = op_class()
    assert new == old  # equal by props: only the code identity tells them apart
    np.testing.assert_array_equal(new.compute(a, b), a + b)
    f = opkit.function([x, y], new(x, y))
    np.testing.assert_array_equal(f(a, b), a + b)
    assert f.__dask_tokenize__() != old_token
    np.testing.assert_array_equal(old.compute(a, b), a * b)  # the old op keeps its own code


def test_a_redefined_python_op_class_runs_its_new_code_in_compute():
    def make(factor):
        class Scale(opkit.Op):
            __props__ = ()

            def make_node(self, x):
                return opkit.Apply(self, [x], [x.type()])

            def perform(self, node, inputs, output_storage):
                output_storage[0][0] = inputs[0] * (2.0 if factor == 2 else 3.0)

        return Scale

    a = np.arange(3.0)
    np.testing.assert_array_equal(make(2)().compute(a), a * 2)
    np.testing.assert_array_equal(make(3)().compute(a), a * 3)


def _axpy_class(monkeypatch):
    spec = importlib.util.spec_from_file_location("ported_axpy_eager", PARAMS_DATA / "ported_axpy.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # as an import does: the op finds its .c file
    spec.loader.exec_module(module)
    return module.Axpy


def test_a_params_op_made_with_a_new_value_for_every_call_shares_one_function_and_keeps_bounded_memos(monkeypatch):
    # The memo's bound lowered (as test_eager.py's test_ops_made_afresh_... does): the loop clears it three times
    # in 200 calls, through the same code as the 1024 of a real session (2000 calls, 10 s, did it twice).
    monkeypatch.setattr(eager, "_IDENTITY_LIMIT", 64)
    axpy = _axpy_class(monkeypatch)
    x, y = np.arange(4.0), np.ones(4)
    np.testing.assert_array_equal(axpy(0.5).compute(x, y), 0.5 * x + y)
    built, compiled = module_events["built"], eager.compiled_count()
    calls = 200
    for step in range(calls):
        alpha, mode = 1.0 + step / 7.0, step % 2
        result = axpy(alpha, mode).compute(x, y)
        if step % 97 < 2:
            np.testing.assert_array_equal(result, alpha * x * y if mode else alpha * x + y)
        assert len(EAGER_MEMO) <= eager._IDENTITY_LIMIT
    assert calls > eager._IDENTITY_LIMIT  # the loop did reach the bound
    assert eager.compiled_count() == compiled  # params are run-time data: the first function serves them all
    assert module_events["built"] == built  # and one C module
    held = axpy(2.5)
    for _ in range(3):  # the same op instance stays served from memory
        np.testing.assert_array_equal(held.compute(x, y), 2.5 * x + y)
    assert EAGER_MEMO[id(held)][0] is held


def test_a_shared_params_function_reports_errors_with_its_own_op(monkeypatch):
    axpy = _axpy_class(monkeypatch)
    axpy(1.5).compute(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"(?s)axpy: x and y must be vectors of one length.*alpha=7\.25"):
        axpy(7.25).compute(np.ones(3), np.ones(2))


def test_functions_op_compute_keeps_are_bounded_for_ops_without_params():
    a = np.arange(3.0)
    for k in range(eager.COMPILED_LIMIT + 50):
        op = opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])(lambda v, k=k: v + k)
        np.testing.assert_array_equal(op.compute(a), a + k)
        assert eager.compiled_count() <= eager.COMPILED_LIMIT
    assert eager.compiled_count() == eager.COMPILED_LIMIT


def test_a_params_op_run_through_python_keeps_a_bounded_memo(monkeypatch):
    axpy = _axpy_class(monkeypatch)
    x, y = np.arange(4.0), np.ones(4)
    with opkit.config.change_flags(mode="FAST_COMPILE"):  # perform binds the params: no shared module to rebind
        for step in range(eager.COMPILED_LIMIT + 40):
            alpha = 0.5 + step
            np.testing.assert_array_equal(axpy(alpha).compute(x, y), alpha * x + y)
            assert eager.compiled_count() <= eager.COMPILED_LIMIT


def test_the_pytensor_bridge_runs_an_edited_op_s_new_code_and_keeps_bounded_memos(tmp_path):
    from opkit.link import node_runner as bridge  # the PyTensor bridge's perform runs run_node

    c_file = tmp_path / "op.c"
    c_file.write_text(EXAMPLE_C.read_text())
    op_class = _times_op(c_file)
    a, b = np.arange(1.0, 4.0), np.full(3, 10.0)
    types = [ot.dvector, ot.dvector]
    np.testing.assert_array_equal(bridge.run_node(op_class(), types, [a, b])[0], a * b)
    c_file.write_text(c_file.read_text().replace("x_ptr[i * x_str] * y_ptr[i * y_str]",
                                                 "x_ptr[i * x_str] - y_ptr[i * y_str]"))
    np.testing.assert_array_equal(bridge.run_node(op_class(), types, [a, b])[0], a - b)
    for k in range(bridge.COMPILED_LIMIT + 20):
        op = opkit.as_op(itypes=[ot.dvector], otypes=[ot.dvector])(lambda v, k=k: v * k)
        np.testing.assert_array_equal(bridge.run_node(op, [ot.dvector], [a])[0], a * k)
    assert bridge.compiled_count() == bridge.COMPILED_LIMIT
    assert len(bridge._by_op) <= 4 * bridge.COMPILED_LIMIT


@pytest.fixture
def pytensor_in_tmp(tmp_path_factory, monkeypatch):
    """Import PyTensor with its compile directory in the session's temporary directory (as test_bridge_pytensor)."""
    if sys.version_info < (3, 11) or importlib.util.find_spec("pytensor") is None:
        pytest.skip("PyTensor 3 needs Python >= 3.11; the pytensor extra is not installed on older Pythons")
    if "pytensor" not in sys.modules:
        base = tmp_path_factory.mktemp("pytensor-base-compiledir")
        flags = ",".join(f for f in [os.environ.get("PYTENSOR_FLAGS", ""), f"base_compiledir={base}"] if f)
        monkeypatch.setenv("PYTENSOR_FLAGS", flags)
        importlib.import_module("pytensor")


def test_as_pytensor_op_wraps_the_op_created_again_after_its_file_was_edited_and_is_bounded(tmp_path, monkeypatch,
                                                                                            pytensor_in_tmp):
    from opkit.bridge import pytensor as bridge

    c_file = tmp_path / "op.c"
    c_file.write_text(EXAMPLE_C.read_text())
    op_class = _times_op(c_file)
    old = op_class()
    assert bridge.as_pytensor_op(old).opkit_op is old
    assert bridge.as_pytensor_op(op_class()).opkit_op is old  # the same code: one bridge
    c_file.write_text(c_file.read_text().replace("x_ptr[i * x_str] * y_ptr[i * y_str]",
                                                 "x_ptr[i * x_str] - y_ptr[i * y_str]"))
    new = op_class()
    assert bridge.as_pytensor_op(new).opkit_op is new
    axpy = _axpy_class(monkeypatch)
    for step in range(bridge._bridged.limit + 20):
        assert bridge.as_pytensor_op(axpy(float(step))).opkit_op.alpha == float(step)
    assert len(bridge._bridged) == bridge._bridged.limit

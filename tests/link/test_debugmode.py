"""DebugMode: perform against C, inputs left alone, no undeclared aliasing, no leaks per call."""

import inspect
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.link.debugmode import DebugMode, DebugModeError
from opkit.link.debugmode_checks import first_difference
from helpers.debug_ops import CopyC, Unary, UnaryC
from helpers.tutorial_ops import VectorTimesScalar

TESTS = pathlib.Path(__file__).resolve().parent


class DisagreeingDouble(UnaryC):
    """perform doubles x; the C code triples it."""

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def c_code(self, node, name, inputs, outputs, sub):
        x, = inputs
        z, = outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewLikeArray({x}, NPY_CORDER, NULL, 0);
        if (!{z}) {sub['fail']}
        for (npy_intp i = 0; i < PyArray_SIZE({x}); ++i)
            ((double*)PyArray_DATA({z}))[i] = 3 * ((double*)PyArray_DATA({x}))[i];
        """


class ScaleInPlaceC(CopyC):
    """Doubles x in place before copying it; no destroy_map."""

    before = "for (npy_intp i = 0; i < PyArray_SIZE({x}); ++i) ((double*)PyArray_DATA({x}))[i] *= 2;"


class LeakyCopy(CopyC):
    """Takes one more reference to x on every call."""

    before = "Py_INCREF({x});"


class LeakyOutput(CopyC):
    """Keeps an extra reference to every output it makes."""

    after = "Py_INCREF({z});"


class ScaleInPlacePython(Unary):
    def perform(self, node, inputs, output_storage):
        x, = inputs
        x *= 2
        output_storage[0][0] = x.copy()


class ScaleDestroying(ScaleInPlacePython):
    destroy_map = {0: [0]}


class ReturnsInput(Unary):
    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]


class ReturnsInputView(ReturnsInput):
    view_map = {0: [0]}


class HoardsInputs(Unary):
    """Keeps every input it sees: one more reference per call."""

    def __init__(self):
        self.seen = []

    def perform(self, node, inputs, output_storage):
        self.seen.append(inputs[0])
        output_storage[0][0] = inputs[0] + 1


class RemembersLastInput(Unary):
    """Keeps the last input only: a constant extra reference, not a leak."""

    def perform(self, node, inputs, output_storage):
        self.last = inputs[0]
        output_storage[0][0] = inputs[0] + 1


class WithDebugPerform(Unary):
    def __init__(self):
        self.calls = []

    def perform(self, node, inputs, output_storage):
        self.calls.append("perform")
        output_storage[0][0] = inputs[0] + 1

    def debug_perform(self, node, inputs, output_storage):
        self.calls.append("debug_perform")
        output_storage[0][0] = inputs[0] + 1


def debug_function(op, dtype="float64"):
    x = ot.vector("x", dtype=dtype)
    return opkit.function([x], op(x), mode="DebugMode")


def test_c_and_perform_disagreeing_is_a_mismatch_naming_node_op_inputs_and_position():
    op = DisagreeingDouble()
    f = debug_function(op)
    with pytest.raises(DebugModeError) as excinfo:
        f(np.arange(4.0))
    error = excinfo.value
    assert isinstance(error, AssertionError)
    assert error.kind == "mismatch"
    assert error.op is op and error.node.op is op
    assert error.details["index"] == (1,)  # 0 * 2 == 0 * 3: element 0 agrees
    assert (error.details["perform"], error.details["c"]) == (2.0, 3.0)
    assert error.details["abs_diff"] == 1.0
    assert error.details["rel_diff"] == pytest.approx(1 / 3)
    message = str(error)
    assert "perform and C code disagree on output 0" in message
    assert "Apply node that failed: DisagreeingDouble(x)" in message
    assert "Op: DisagreeingDouble (test_debugmode.DisagreeingDouble)" in message
    assert "x: shape=(4,), dtype=float64" in message
    assert "First mismatch at index (1,): perform=2.0, C=3.0, abs diff=1, rel diff=0.333333" in message
    assert type(error).__module__ == "opkit" and opkit.DebugModeError is DebugModeError


def test_the_same_op_runs_in_fast_run_with_the_c_result():
    x = ot.dvector("x")
    f = opkit.function([x], DisagreeingDouble()(x))
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 3.0, 6.0])


def test_c_code_modifying_its_input_without_destroy_map():
    f = debug_function(ScaleInPlaceC())
    data = np.array([1.0, 2.0, 3.0])
    with pytest.raises(DebugModeError) as excinfo:
        f(data)
    error = excinfo.value
    assert error.kind == "input_modified"
    assert error.details["implementation"] == "C code" and error.details["index"] == (0,)
    message = str(error)
    assert "C code modified input 0 (x) in place, and the op has no destroy_map" in message
    assert "Op: ScaleInPlaceC (test_debugmode.ScaleInPlaceC)" in message
    assert "x: shape=(3,), dtype=float64" in message
    assert "First change at index (0,): before=1.0, after=2.0" in message
    assert "destroy_map = {0: [0]}" in message
    np.testing.assert_array_equal(data, [1.0, 2.0, 3.0])  # DebugMode ran the op on a copy


def test_perform_modifying_its_input_without_destroy_map():
    with pytest.raises(DebugModeError, match=r"perform modified input 0 \(x\) in place") as excinfo:
        debug_function(ScaleInPlacePython())(np.zeros((2,)) + [5.0, 7.0])
    assert excinfo.value.kind == "input_modified"
    assert "First change at index (0,): before=5.0, after=10.0" in str(excinfo.value)


def test_destroy_map_allows_modifying_the_input():
    np.testing.assert_array_equal(debug_function(ScaleDestroying())(np.array([1.0, 2.0])), [2.0, 4.0])


def test_c_code_keeping_a_reference_to_its_input_per_call_is_a_reference_leak():
    f = debug_function(LeakyCopy())
    data = np.arange(5.0)
    with pytest.raises(DebugModeError) as excinfo:
        f(data)
    error = excinfo.value
    assert error.kind == "reference_leak"
    assert error.details["input"] == 0 and error.details["implementation"] == "C code"
    counts = error.details["refcounts"]
    assert [later - earlier for earlier, later in zip(counts, counts[1:])] == [1, 1, 1]
    message = str(error)
    assert "C code keeps a reference to input 0 (x) on every call" in message
    assert "Op: LeakyCopy (test_debugmode.LeakyCopy)" in message
    assert "x: shape=(5,), dtype=float64" in message


def test_c_code_leaking_its_output_per_call_grows_traced_memory():
    with pytest.raises(DebugModeError, match="C code leaks about [0-9]+ bytes of traced memory per call") as excinfo:
        debug_function(LeakyOutput())(np.arange(5.0))
    assert excinfo.value.kind == "reference_leak"
    assert excinfo.value.details["bytes_per_call"] >= 5 * 8


def test_perform_keeping_every_input_is_a_reference_leak_but_keeping_the_last_is_not():
    with pytest.raises(DebugModeError, match=r"perform keeps a reference to input 0 \(x\) on every call") as excinfo:
        debug_function(HoardsInputs())(np.arange(3.0))
    assert "Hint: perform stores its input somewhere" in str(excinfo.value)
    np.testing.assert_array_equal(debug_function(RemembersLastInput())(np.arange(3.0)), [1.0, 2.0, 3.0])


def test_output_aliasing_an_input_needs_view_map():
    with pytest.raises(DebugModeError) as excinfo:
        debug_function(ReturnsInput())(np.arange(3.0))
    assert excinfo.value.kind == "output_aliases_input"
    assert excinfo.value.details == {"output": 0, "input": 0, "implementation": "perform"}
    assert "view_map = {0: [0]}" in str(excinfo.value)
    data = np.arange(3.0)
    out = debug_function(ReturnsInputView())(data)
    np.testing.assert_array_equal(out, data)
    assert not np.shares_memory(out, data)


def test_debug_perform_is_used_instead_of_perform():
    op = WithDebugPerform()
    np.testing.assert_array_equal(debug_function(op)(np.zeros(2)), [1.0, 1.0])
    assert set(op.calls) == {"debug_perform"}


def test_builtin_ops_pass_with_correct_results(opkit_rng):
    x, y = ot.dvector("x"), ot.dvector("y")
    m = ot.dmatrix("m")
    outputs = [x * 2 + ot.exp(y) - ot.sqrt(x), ot.sum(x * y), ot.dot(m, x), ot.maximum(x, y)]
    f = opkit.function([x, y, m], outputs, mode="DebugMode")
    assert isinstance(f.maker.mode, DebugMode)
    a, b, c = opkit_rng.uniform(1, 2, 5), opkit_rng.normal(size=5), opkit_rng.normal(size=(3, 5))
    for _ in range(3):
        got = f(a, b, c)
        np.testing.assert_allclose(got[0], a * 2 + np.exp(b) - np.sqrt(a))
        np.testing.assert_allclose(got[1], np.sum(a * b))
        np.testing.assert_allclose(got[2], c @ a)
        np.testing.assert_array_equal(got[3], np.maximum(a, b))


def test_c_only_op_passes_and_returns_the_c_result():
    x, y = ot.dvector("x"), ot.dscalar("y")
    f = opkit.function([x, y], VectorTimesScalar()(x, y), mode=DebugMode())
    data = np.arange(6.0)
    np.testing.assert_array_equal(f(data, 2.5), data * 2.5)
    np.testing.assert_array_equal(data, np.arange(6.0))


def test_debugmode_object_excludes_rewrites_and_refuses_other_linkers():
    mode = DebugMode().excluding("merge")
    assert isinstance(mode, DebugMode) and "merge" not in mode.rewrites()
    assert mode.rewrites() == tuple(n for n in opkit.Mode(optimizer="fast_run").rewrites() if n != "merge")
    with pytest.raises(TypeError, match="DebugMode runs its own linker"):
        DebugMode(linker="py")
    with pytest.raises(ValueError, match="repeats must be at least 2"):
        DebugMode(repeats=1)


def test_first_difference_uses_the_types_tolerance_and_returns_an_index_tuple():
    equal = ot.TensorType("float32", shape=(None, None)).values_eq_approx
    a = np.ones((3, 4), dtype="float32")
    b = a.copy()
    b[0, 1] += 1e-7  # within float32 tolerance
    b[2, 0] += 1.0
    assert first_difference(a, b, equal) == (2, 0)
    assert first_difference(a, a.copy(), equal) is None
    scalar_equal = ot.TensorType("float64", shape=()).values_eq_approx
    assert first_difference(np.float64(1.0), np.float64(2.0), scalar_equal) == ()


def run_python(code, **env):
    path = os.pathsep.join([str(TESTS.parent), os.environ.get("PYTHONPATH", "")])  # tests/, for helpers
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": path, **env}, cwd=TESTS)


def test_opkit_flags_select_debugmode_in_a_subprocess():
    code = textwrap.dedent("""
        import numpy as np, opkit, opkit.tensor as ot
        from test_debugmode import ScaleInPlacePython
        x = ot.dvector("x")
        f = opkit.function([x], x * 2 + 1)
        print(type(f.maker.mode).__name__, f(np.arange(3.0)).tolist())
        try:
            opkit.function([x], ScaleInPlacePython()(x))(np.arange(3.0))
        except opkit.DebugModeError as error:
            print(error.kind)
        """)
    run = run_python(code, OPKIT_FLAGS="mode=DebugMode")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["DebugMode [1.0, 3.0, 5.0]", "input_modified"]


SUITE_HEADER = """\
import numpy as np
import opkit
import opkit.tensor as ot
from opkit import Apply, Op
"""

GOOD_SUITE = """
def test_elementwise(opkit_rng):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], x * y + 1)
    assert type(f.maker.mode).__name__ == "DebugMode"
    a, b = opkit_rng.normal(size=4), opkit_rng.normal(size=4)
    np.testing.assert_allclose(f(a, b), a * b + 1)


def test_sum_and_dot_in_a_private_cache(opkit_rng, opkit_compiledir):
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], [ot.sum(x * y), ot.dot(x, y)])
    a, b = opkit_rng.normal(size=4), opkit_rng.normal(size=4)
    total, dot = f(a, b)
    np.testing.assert_allclose([total, dot], [a @ b, a @ b])
    assert any(opkit_compiledir.rglob("*.so"))
"""

WRONG_OP_TEST = """
def test_disagreeing_double_gives_its_c_result():
    x = ot.dvector("x")
    f = opkit.function([x], DisagreeingDouble()(x))
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 3.0, 6.0])
"""


def run_pytest(tmp_path, name, body, *options):
    path = tmp_path / name
    path.write_text(body)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(path)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)


# soak: a second pytest process with a cold private cache; the next test runs --opkit-mode=DebugMode in one, and
# the suite's fixtures (opkit_rng, opkit_compiledir) serve tests/tensor and tests/cop in the default run
@pytest.mark.soak
def test_plugin_suite_runs_under_debugmode(tmp_path):
    run = run_pytest(tmp_path, "test_good.py", SUITE_HEADER + GOOD_SUITE, "--opkit-mode=DebugMode")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout


def test_plugin_suite_with_a_wrong_op_fails_only_under_debugmode(tmp_path):
    # The op's own source, so the subprocess finds its module in the shared compile cache.
    sources = [inspect.getsource(cls) for cls in (Unary, UnaryC, DisagreeingDouble)]
    body = "\n\n".join([SUITE_HEADER, *sources, WRONG_OP_TEST])
    plain = run_pytest(tmp_path, "test_wrong.py", body)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    debug = run_pytest(tmp_path, "test_wrong.py", body, "--opkit-mode=DebugMode")
    assert debug.returncode == 1, debug.stdout + debug.stderr
    assert "DebugModeError" in debug.stdout
    assert "perform and C code disagree on output 0" in debug.stdout
    assert "First mismatch at index (1,): perform=2.0, C=3.0" in debug.stdout

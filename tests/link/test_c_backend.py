"""The C backend end to end: errors, leaks, buffers, and the cache seen from opkit.function."""

import gc
import os
import pathlib
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit import Apply, Op
from helpers.caches import seeded

REPO = pathlib.Path(__file__).resolve().parents[2]


class CheckedSqrt(Op):
    """sqrt in C that raises ValueError (PyErr_Format + FAIL) on a negative element."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def c_code_cache_version(self):
        return (1,)

    def c_code(self, node, name, inputs, outputs, sub):
        x, = inputs
        z, = outputs
        return f"""
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewLikeArray({x}, NPY_CORDER, NULL, 0);
        if (!{z}) {sub['fail']}
        for (npy_intp i = 0; i < PyArray_SIZE({x}); ++i) {{
            double v = ((double*)PyArray_DATA({x}))[i];
            if (v < 0) {{
                PyErr_Format(PyExc_ValueError, "CheckedSqrt: element %zd is negative (%d)", (Py_ssize_t)i, (int)v);
                {sub['fail']}
            }}
            ((double*)PyArray_DATA({z}))[i] = sqrt(v);
        }}
        """


def test_c_error_surfaces_leaks_nothing_and_keeps_the_function_usable():
    x = ot.dvector("x")
    f = opkit.function([x], CheckedSqrt()(x * 2) + 1)
    good, bad = np.arange(100.0), -np.ones(100)
    np.testing.assert_allclose(f(good), np.sqrt(good * 2) + 1)
    with pytest.raises(ValueError, match=r"CheckedSqrt: element 0 is negative \(-2\)"):
        f(bad)

    def churn(n):
        for _ in range(n):
            try:
                f(bad)
            except ValueError:
                pass
            f(good)

    churn(200)  # warm up allocator pools and caches
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    refs_before = sys.gettotalrefcount() if hasattr(sys, "gettotalrefcount") else None
    churn(10_000)
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    # 10^4 failing + 10^4 good calls: a leaked 800-byte array per call would be ~16 MB
    assert growth < 64 * 1024, f"memory grew by {growth} bytes over 20000 calls"
    if refs_before is not None:
        assert sys.gettotalrefcount() - refs_before < 100
    np.testing.assert_allclose(f(good), np.sqrt(good * 2) + 1)


def test_input_refcounts_are_unchanged_by_calls():
    x = ot.dvector("x")
    f = opkit.function([x], CheckedSqrt()(x))
    data = np.arange(10.0)
    before = sys.getrefcount(data)
    for _ in range(1000):
        f(data)
    with pytest.raises(ValueError):
        f(-data - 1)
    assert sys.getrefcount(data) == before


def test_returned_outputs_are_never_overwritten_by_a_later_call():
    x = ot.dvector("x")
    f = opkit.function([x], [(x + 1) * 2, x * 3])
    first = f(np.zeros(4))
    second = f(np.ones(4))
    np.testing.assert_array_equal(first[0], np.full(4, 2.0))
    np.testing.assert_array_equal(first[1], np.zeros(4))
    np.testing.assert_array_equal(second[0], np.full(4, 4.0))
    assert not np.shares_memory(first[0], second[0])


def test_intermediate_buffers_are_reused_and_resized():
    x = ot.dvector("x")
    f = opkit.function([x], ((x + 1) * 2) - x)
    for n in (3, 3, 7, 1, 7):
        data = np.arange(float(n))
        np.testing.assert_array_equal(f(data), (data + 1) * 2 - data)


def test_trusted_call_with_wrong_input_raises_type_error_from_c():
    x = ot.dmatrix("x")
    f = opkit.function([x], x * 2)
    f.trust_input = True
    with pytest.raises(TypeError, match="expected an array with ndim 2, got ndim 1"):
        f(np.ones(3))
    with pytest.raises(TypeError, match="expected a numpy.ndarray, got list"):
        f([[1.0]])
    with pytest.raises(TypeError, match="expected an array of dtype float64"):
        f(np.ones((2, 2), dtype="float32"))
    np.testing.assert_array_equal(f(np.ones((2, 2))), np.full((2, 2), 2.0))


def test_broadcasting_mismatch_message_from_c():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    f = opkit.function([x, y], x + y)
    with pytest.raises(ValueError, match=r"the inputs of add with shapes \(2, 3\), \(4,\) cannot be broadcast "
                                         r"together: axis 1 has lengths \[3, 4\]"):
        f(np.ones((2, 3)), np.ones(4))


def test_graph_with_a_python_only_node_runs_as_c_regions_joined_by_python():
    from opkit.cop.generate.region import Region
    from opkit.link.partition import partition

    @opkit.as_op(itypes=[ot.dmatrix], otypes=[ot.dvector])
    def row_sums(m):  # perform only
        return m.sum(axis=1)

    x = ot.dmatrix("x")
    y = row_sums(x * 2) + 1
    f = opkit.function([x], y)
    steps = partition(f.maker.fgraph, f.maker.backend.target)
    kinds = [type(step).__name__ for step in steps]
    assert kinds == ["Region", "Apply", "Region"]
    data = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(data), (data * 2).sum(axis=1) + 1)
    from opkit.cop.generate.cinterface import op_has_c
    assert all(isinstance(s, Region) or not op_has_c(s) for s in steps)


def test_missing_compiler_is_a_clear_error_not_a_silent_fallback():
    x = ot.dvector("x")
    with opkit.config.change_flags(cxx="/nonexistent/g++"):
        from opkit.cop.toolchain import compiler
        compiler._found.clear()
        try:
            with pytest.raises(opkit.CompileError) as info:
                opkit.function([x], x * 2)
            message = str(info.value)
            assert "/nonexistent/g++" in message and "opkit doctor" in message
            assert "python_fallback" in message
            with opkit.config.change_flags(python_fallback=True), pytest.warns(RuntimeWarning, match="no C"):
                f = opkit.function([x], x * 2)
            np.testing.assert_array_equal(f(np.ones(2)), np.full(2, 2.0))
        finally:
            compiler._found.clear()


def test_compile_error_names_the_op_and_keeps_the_source():
    class Broken(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def c_code(self, node, name, inputs, outputs, sub):
            return "this is not C++;"

    x = ot.dvector("x")
    with pytest.raises(opkit.CompileError) as info:
        opkit.function([x], Broken()(x))
    error = info.value
    assert "Broken" in str(error) and "while compiling" in str(error)
    assert os.path.exists(error.source_path)
    assert error.errors and error.command
    assert len(str(error).splitlines()) < 20


SCRIPT = textwrap.dedent("""
    import numpy as np, opkit, opkit.tensor as ot
    x, y = ot.dvector("x"), ot.dvector("y")
    f = opkit.function([x, y], (x * y + 2.5) * x - y)
    a, b = np.arange(4.0), np.ones(4)
    assert np.allclose(f(a, b), (a * b + 2.5) * a - b)
""")


def _run(script, env, cwd=None):
    return subprocess.run([sys.executable, "-c", script], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _entries(root):
    return sorted(p.name for p in pathlib.Path(root).glob("*/*") if p.is_dir() and len(p.parent.name) == 2)


# a fresh cache holds the graph's module and opkit's call-path module (FunctionBase)
MODULES_PER_SCRIPT = 2


def test_four_hash_seeds_add_no_modules_after_the_first(tmp_path):
    """A key that read a set's or dict's order would differ between almost any two seeds (ten processes: CI time)."""
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    first = None
    for seed in range(4):
        env["PYTHONHASHSEED"] = str(seed * 7919 + 1)
        result = _run(SCRIPT, env)
        assert result.returncode == 0, result.stderr
        assert result.stdout == ""          # nothing printed to stdout
        entries = _entries(tmp_path / "cache")
        if first is None:
            first = entries
            assert len(first) == MODULES_PER_SCRIPT
        assert entries == first


def test_four_processes_compile_one_graph_once(tmp_path):
    """Processes started together wait on one build's lock (on 2 cores four contend as eight do: CI time)."""
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in results]
    assert len(_entries(tmp_path / "cache")) == MODULES_PER_SCRIPT
    builds = list((tmp_path / "cache").glob(".build-*"))
    assert builds == []


def test_killed_compile_does_not_block_the_next_run(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    victim = subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    # kill it while it compiles: once a build directory (or the lock) appears
    import time
    deadline = time.time() + 60
    while time.time() < deadline and not list((tmp_path / "cache").glob("*/*.lock")):
        time.sleep(0.005)
    victim.kill()
    victim.wait()
    started = time.time()
    result = _run(SCRIPT, env)
    assert result.returncode == 0, result.stderr
    assert time.time() - started < 60
    assert len(_entries(tmp_path / "cache")) == MODULES_PER_SCRIPT


def test_truncated_shared_object_is_rebuilt_with_a_warning(tmp_path):
    env = dict(os.environ, OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    assert _run(SCRIPT, env).returncode == 0
    so = max((tmp_path / "cache").glob("*/*/*.so"), key=lambda p: p.stat().st_size)
    so.write_bytes(so.read_bytes()[:1000])
    result = _run(SCRIPT, env)
    assert result.returncode == 0, result.stderr
    assert "cannot be used" in result.stderr and "rebuilding" in result.stderr
    assert _run(SCRIPT, env).stderr == ""


def test_cache_directory_writable_by_others_is_refused(tmp_path):
    root = tmp_path / "shared-cache"
    root.mkdir()
    root.chmod(0o777)
    x = ot.dvector("x")
    with opkit.config.change_flags(compiledir=str(root)):
        with pytest.raises(PermissionError, match="chmod 700"):
            opkit.function([x], x * 3 + 1)


def test_compiledir_can_change_at_run_time(tmp_path):
    x = ot.dvector("x")
    opkit.function([x], x + 1)  # the call-path module is loaded once per process, before the switch
    for name in ("one", "two"):
        with opkit.config.change_flags(compiledir=seeded(tmp_path / name)):
            f = opkit.function([x], x * 5 - 4)
            np.testing.assert_array_equal(f(np.ones(2)), np.ones(2))
        assert len(_entries(tmp_path / name)) == 1   # the call path was loaded before


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", opkit.Mode(linker="py")])
def test_op_without_perform_or_c_code_says_what_to_define(mode):
    op = Op()
    op.make_node = lambda x: Apply(op, [x], [x.type()])
    x = ot.dvector("x")
    with pytest.raises(NotImplementedError, match=r"has neither perform\(\) nor C code .*\n"
                                                  r"Hint: define perform\(node, inputs, output_storage\)"):
        opkit.function([x], op(x), mode=mode)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes (add_note) are Python 3.11+")
def test_errors_from_compiled_graphs_name_the_failing_node_or_input():
    x = ot.dvector("x")
    f = opkit.function([x], CheckedSqrt()(x * 2) + 1)
    with pytest.raises(ValueError) as info:
        f(-np.ones(3))
    notes = "\n".join(info.value.__notes__)
    assert "Apply node that failed: CheckedSqrt(" in notes
    assert "Op: test_c_backend.CheckedSqrt" in notes and "Input types: TensorType(float64, vector)" in notes

    m = ot.dmatrix("m")
    g = opkit.function([m], m * 2)
    g.trust_input = True
    with pytest.raises(TypeError) as info:
        g(np.ones(3))
    assert info.value.__notes__ == ["while checking input 0 (m), expected TensorType(float64, matrix)"]

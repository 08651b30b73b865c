"""The backend (compile, shipped, python) is decided once per function and passed down to its linker and class."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.toolchain import compiler
from opkit.decision import decide
from opkit.link.backend import COMPILE, PYTHON, SHIPPED, Backend
from opkit.link.function import PyFunction, function_class

MISSING = "/nonexistent/g++"


@pytest.fixture
def no_compiler():
    compiler._found.clear()
    try:
        with opkit.config.change_flags(cxx=MISSING):
            yield
    finally:
        compiler._found.clear()


def test_with_a_compiler_the_backend_compiles_and_the_class_is_the_c_one():
    x = ot.dvector("x")
    f = opkit.function([x], x * 2)
    target = f.maker.target  # the device's, carried by the backend to every region the linker cuts
    assert f.maker.backend == Backend(COMPILE, target=target) and f.maker.backend.compiles
    assert target.name == opkit.config.device and f.maker.backend != Backend(COMPILE)
    assert type(f) is function_class(f.maker.backend) and type(f) is not PyFunction


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", opkit.Mode(linker="cop")])
def test_without_a_compiler_under_python_fallback_one_decision_runs_every_linker(no_compiler, mode):
    x = ot.dvector("x")
    with opkit.config.change_flags(python_fallback=True), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = opkit.function([x], ot.exp(x) * 2 + x, mode=mode)
    assert f.maker.backend.kind == PYTHON and MISSING in str(f.maker.backend.error)
    # the class: the C one where this process loaded the call path before, else PyFunction (see the cold test)
    assert type(f) is function_class(f.maker.backend)
    data = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(f(data), np.exp(data) * 2 + data)
    messages = [str(w.message) for w in caught if w.category is RuntimeWarning]
    assert len(messages) <= 1  # one warning per function, naming every node that runs perform
    if messages:
        assert messages[0].startswith("no C++ compiler and no shipped module for ") and "exp" in messages[0]


def test_without_a_compiler_nor_python_fallback_the_error_says_what_is_missing(no_compiler):
    x = ot.dvector("x")
    assert decide().kind == SHIPPED
    for mode in ("FAST_RUN", opkit.Mode(linker="cop")):
        with pytest.raises(opkit.MissingModuleError) as info:
            opkit.function([x], x * 2, mode=mode)
        message = str(info.value)
        assert "no C++ compiler to build one" in message and MISSING in message and "python_fallback" in message


def test_shared_updates_without_a_compiler_run_shipped_or_perform_and_say_what_is_missing(no_compiler):
    c = opkit.shared(np.zeros(3), name="c")
    with pytest.raises(opkit.MissingModuleError, match="no C\\+\\+ compiler to build one"):
        opkit.function([], c, updates={c: c + 1})
    with opkit.config.change_flags(python_fallback=True), pytest.warns(RuntimeWarning, match="no shipped module"):
        f = opkit.function([], c, updates={c: c + 1})
    for _ in range(2):
        f()
    np.testing.assert_array_equal(c.get_value(), np.full(3, 2.0))


def test_debugmode_without_a_compiler_checks_perform_with_a_warning_or_raises_the_compilers_error(no_compiler):
    x = ot.dvector("x")
    with pytest.raises(opkit.CompileError, match="/nonexistent/g\\+\\+"):
        opkit.function([x], x * 2, mode="DebugMode")
    with opkit.config.change_flags(python_fallback=True), \
            pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler: running Python perform\\(\\)"):
        f = opkit.function([x], x * 2, mode="DebugMode")
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 2)


def test_backend_errors_raise_the_probe_s_error_or_warn():
    error = opkit.CompileError("no C++ compiler found: tried g++")
    with pytest.raises(opkit.CompileError, match="tried g"):
        Backend(SHIPPED, error).compiles_or_warns("perform")
    with pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler: running perform"):
        assert Backend(PYTHON, error).compiles_or_warns("perform") is False
    assert Backend(COMPILE).compiles_or_warns("perform") is True


COLD = textwrap.dedent("""
    import numpy as np
    import opkit, opkit.tensor as ot
    from opkit.errors import CompileError
    from opkit.link import fastcall
    from opkit.decision import decide
    from opkit.link.backend import PYTHON, SHIPPED, Backend
    from opkit.link.function import PyFunction, function_class

    backend = decide()
    assert function_class(Backend(SHIPPED, CompileError("none"))) is PyFunction
    assert function_class(Backend(PYTHON, CompileError("none"))) is PyFunction
    assert fastcall._loaded is None, "choosing a class without a compiler built the call path"
    x = ot.dvector("x")
    f = opkit.function([x], x + 1.0)
    np.testing.assert_array_equal(f(np.zeros(2)), np.ones(2))
    print(backend.kind, type(f).__name__, fastcall._loaded is None)
""")


def test_choosing_a_function_class_builds_no_call_path_where_the_backend_does_not_compile(tmp_path):
    env = {**os.environ, "OPKIT_COMPILEDIR": str(tmp_path / "cache"),
           "OPKIT_FLAGS": f"cxx={MISSING},python_fallback=true"}
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", COLD], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["python", "PyFunction", "True"]
    cache = tmp_path / "cache"
    assert not cache.exists() or not any(p.suffix == ".so" for p in cache.rglob("*"))  # nothing was compiled

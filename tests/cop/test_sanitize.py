"""OPKIT_FLAGS=sanitize=address: its own cache key, a clear error without the runtime, ASan reports."""

import os
import pathlib
import shlex
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opkit
import opkit.tensor as ot
from opkit.cop.toolchain import sanitize
from opkit.cop.generate.codegen import render_module
from opkit.cop.toolchain.identity import module_key
from opkit.cop.generate.region import Region
from opkit.cop.toolchain.sanitize import SanitizerRuntimeError, asan_runtime, preload_hint, require_runtime, runtime_loaded

TESTS = pathlib.Path(__file__).resolve().parents[1]
RUNTIME = asan_runtime()
needs_asan = pytest.mark.skipif(RUNTIME is None, reason="the C++ compiler has no AddressSanitizer runtime (libasan)")


@pytest.fixture
def clean_environment(monkeypatch):
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    monkeypatch.delenv("ASAN_OPTIONS", raising=False)


def test_sanitized_modules_have_their_own_cache_key():
    x = ot.dvector("x")
    node = (x * 2).owner
    generated = render_module(Region.from_nodes([node], lambda variable: True))
    plain = module_key(generated)
    with opkit.config.change_flags(sanitize="address"):
        sanitized = module_key(generated)
    assert plain != sanitized
    assert module_key(generated) == plain


@needs_asan
def test_asan_runtime_is_the_compilers_library():
    assert os.path.isabs(RUNTIME) and os.path.isfile(RUNTIME)
    assert os.path.basename(RUNTIME).startswith(("libasan.so", "libclang_rt.asan"))


def test_preload_hint_is_the_command_line_to_run(clean_environment):
    hint = preload_hint("/lib/libasan.so.8", ["python", "-m", "pytest", "tests/my test.py"])
    assert hint == "LD_PRELOAD=/lib/libasan.so.8 ASAN_OPTIONS=detect_leaks=0 python -m pytest 'tests/my test.py'"
    assert preload_hint("/lib/libasan.so.8").endswith(" " + shlex.join(sys.orig_argv))  # this very process


def test_preload_hint_keeps_existing_preloads_and_options(monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", "/lib/libfoo.so")
    monkeypatch.setenv("ASAN_OPTIONS", "abort_on_error=1")
    hint = preload_hint("/lib/libasan.so.8", ["python", "run.py"])
    assert hint == "LD_PRELOAD=/lib/libasan.so.8:/lib/libfoo.so ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 python run.py"


@pytest.mark.skipif(runtime_loaded(), reason="this test process already runs with the ASan runtime")
def test_compiling_with_sanitize_but_no_preloaded_runtime_says_what_to_run(clean_environment):
    require_runtime()  # sanitize is off: nothing to check
    x = ot.dvector("x")
    with opkit.config.change_flags(sanitize="address"):
        with pytest.raises(SanitizerRuntimeError) as excinfo:
            opkit.function([x], x * 5)
    error = excinfo.value
    assert "did not preload the AddressSanitizer runtime" in str(error)
    if RUNTIME is not None:
        assert error.runtime == RUNTIME
        assert error.command == preload_hint(RUNTIME)
        assert error.command.startswith(f"LD_PRELOAD={RUNTIME} ASAN_OPTIONS=detect_leaks=0 ")
        assert f"  {error.command}\n" in str(error)
    np.testing.assert_array_equal(opkit.function([x], x * 5)(np.ones(2)), [5.0, 5.0])  # sanitize off again


@pytest.mark.skipif(runtime_loaded(), reason="this test process already runs with the ASan runtime")
def test_missing_runtime_says_what_to_install(monkeypatch):
    monkeypatch.setattr(sanitize, "asan_runtime", lambda compiler=None: None)
    with opkit.config.change_flags(sanitize="address"):
        with pytest.raises(SanitizerRuntimeError, match="has no AddressSanitizer runtime") as excinfo:
            require_runtime()
    assert "apt-get install libasan8" in str(excinfo.value)
    assert excinfo.value.command is None


OUT_OF_BOUNDS = textwrap.dedent("""
    import numpy as np
    import opkit
    import opkit.tensor as ot
    from helpers.debug_ops import CopyC


    class WritesPastTheEnd(CopyC):
        after = "((double*)PyArray_DATA({z}))[PyArray_SIZE({z})] = 1.0;"


    x = ot.dvector("x")
    print("correct op:", opkit.function([x], x * 3)(np.arange(3.0)).tolist(), flush=True)
    f = opkit.function([x], WritesPastTheEnd()(x))
    print("compiled", flush=True)
    f(np.arange(5.0))
    print("no error reported", flush=True)
    """)


@needs_asan
def test_out_of_bounds_write_is_reported_by_asan():
    env = {**os.environ, "OPKIT_FLAGS": "sanitize=address", "LD_PRELOAD": RUNTIME,
           "ASAN_OPTIONS": "detect_leaks=0"}
    run = subprocess.run([sys.executable, "-c", OUT_OF_BOUNDS], capture_output=True, text=True, env=env,
                         timeout=600, cwd=TESTS)
    assert run.stdout.splitlines() == ["correct op: [0.0, 3.0, 6.0]", "compiled"], run.stdout + run.stderr
    assert run.returncode != 0
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in run.stderr
    assert "WRITE of size 8" in run.stderr
    assert "0 bytes to the right of 40-byte region" in run.stderr

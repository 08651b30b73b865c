"""A fresh process with a warm cache: no compiler spawned, no build-only module imported (issue 26, fresh process).

A module's identity stays its generated content plus the toolchain's facts; what
changes is only how a warm process learns those facts: the compiler's `--version`
line is kept in the cache directory, named by the compiler's file (path, inode,
size, times), and the modules only a build needs are imported when a build runs.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

import opkit
from opkit.cop.toolchain import compiler
from opkit.cop.compiledir.layout import HOST_DIR
from opkit.core import digest

# Only a build (or an error message) needs these: a warm process must not pay for importing them.
# The section parser and macro expander included: built-in ops' expanded files are kept (opkit.cop.source.section_memo).
BUILD_ONLY = ("subprocess", "tempfile", "shutil", "socket", "zipfile", "importlib.resources", "difflib",
              "jinja2", "setuptools", "bz2", "lzma", "opkit.cop.toolchain.pch",
              "opkit.cop.source.sections", "opkit.cop.source.macros", "opkit.cop.source.cop", "opkit.cop.source.section_op")
# Standard-library modules that `import numpy` does not import and a warm process does not need (issue 47):
# opkit imports them where they are used (flock, a failed build, a copied constant, a schedule's heap, cflags'
# shell words), takes threading's locks and thread-locals from _thread, and keeps config's thread cell in ctypes.
NOT_ON_WARM_PATH = ("array", "threading", "copy", "heapq", "shlex", "fcntl")
# What the warm path does import: a module of NOT_ON_WARM_PATH that these import themselves on this Python
# (Python 3.13's sysconfig imports threading) is theirs to pay, not opkit's.
WARM_NEEDS = "import numpy, ctypes, pathlib, sysconfig, importlib.util"

WARM_SCRIPT = """
import json, sys
import opkit, opkit.tensor as ot, numpy as np
from opkit.cop.store.cache import module_events
x, y = ot.dvector('x'), ot.dvector('y')
f = opkit.function([x, y], x * y)
assert f(np.ones(3), np.full(3, 2.0)).tolist() == [2.0, 2.0, 2.0]
print(json.dumps({"modules": sorted(sys.modules), "events": dict(module_events)}))
"""


def _run(script, compiledir, path_prefix=None):
    env = dict(os.environ, OPKIT_COMPILEDIR=str(compiledir))
    if path_prefix:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def _logging_compiler(directory, version=None):
    """A g++ wrapper that logs each `--version` it answers: what a warm process must not run."""
    real = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
    if version is None:  # the real compiler's own line (flags may depend on which compiler it is)
        version = subprocess.run([real, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    script = directory / "g++"
    script.write_text(f'#!/bin/sh\nfor word in "$@"; do if [ "$word" = "--version" ]; then\n'
                      f'  echo asked >> "{directory}/log"; echo "{version}"; exit 0\nfi; done\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return script


@pytest.fixture(scope="module")
def cold_then_warm(tmp_path_factory):
    """WARM_SCRIPT run in a cold process, then in a warm one, on one fresh cache with a g++ that logs its
    `--version` answers first on PATH: (the cache, the cold process's record, the times the compiler was asked
    after it, the warm process's record, the times after it). Shared by the tests of the warm process."""
    tmp_path = tmp_path_factory.mktemp("cold-then-warm")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _logging_compiler(bin_dir)
    compiledir = tmp_path / "cache"
    cold = _run(WARM_SCRIPT, compiledir, bin_dir)
    asked_cold = (bin_dir / "log").read_text().count("asked")
    warm = _run(WARM_SCRIPT, compiledir, bin_dir)
    return compiledir, cold, asked_cold, warm, (bin_dir / "log").read_text().count("asked")


def test_a_warm_process_spawns_no_compiler_and_imports_no_build_only_module(cold_then_warm):
    compiledir, cold, asked_cold, warm, asked_warm = cold_then_warm
    assert cold["events"].get("built", 0) >= 1
    assert asked_cold == 1  # once, for the first process
    assert warm["events"] == {"loaded": 2}  # the call path and the graph's module, from disk
    assert asked_warm == 1  # not asked again
    assert [name for name in BUILD_ONLY if name in warm["modules"]] == []
    needed = _run(f"import json, sys\n{WARM_NEEDS}\nprint(json.dumps({{'modules': sorted(sys.modules)}}))",
                  compiledir)["modules"]
    assert [name for name in NOT_ON_WARM_PATH if name in warm["modules"] and name not in needed] == []


def test_the_compiler_identity_is_asked_again_when_the_compiler_file_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(compiler, "_found", {})
    script = _logging_compiler(tmp_path, "fakecc 1.0")
    with opkit.config.change_flags(compiledir=str(tmp_path / "cache")):
        first = compiler._identify((str(script),))
        assert first == f"{os.path.realpath(script)} fakecc 1.0"
        assert compiler._identify((str(script),)) == first  # from the cache directory
        assert (tmp_path / "log").read_text().count("asked") == 1
        assert len(list((tmp_path / "cache" / HOST_DIR).glob("compiler-identity-*"))) == 1
        _logging_compiler(tmp_path, "fakecc 2.0 (installed again)")  # same path, new content
        assert compiler._identify((str(script),)) == f"{os.path.realpath(script)} fakecc 2.0 (installed again)"
        assert (tmp_path / "log").read_text().count("asked") == 2
        # another command line (an argument) is another question
        assert compiler._identify((str(script), "-m64")).endswith("fakecc 2.0 (installed again)")
        assert (tmp_path / "log").read_text().count("asked") == 3


def test_a_compiler_that_cannot_run_is_still_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(compiler, "_found", {})
    broken = tmp_path / "g++"
    broken.write_text("not a program\n")
    broken.chmod(0o755)
    with opkit.config.change_flags(compiledir=str(tmp_path / "cache"), cxx=str(broken)):
        with pytest.raises(opkit.CompileError, match=r"the C\+\+ compiler .*g\+\+ cannot be run"):
            compiler.find_compiler()
    assert not list((tmp_path / "cache" / HOST_DIR).glob("compiler-identity-*"))  # nothing remembered


@pytest.mark.parametrize("name", ["g++", "sh", "no-such-program-opkit", "/bin/sh", "./g++", "bin"])
def test_which_finds_what_shutil_which_finds(name, tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "g++").write_text("#!/bin/sh\n")
    (tmp_path / "g++").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    for path in (os.environ.get("PATH", ""), f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}", ""):
        monkeypatch.setenv("PATH", path)
        assert compiler._which(name) == shutil.which(name)


@pytest.mark.parametrize("size", [0, 1, 1000, digest.LARGE - 1, digest.LARGE, digest.LARGE + 7])
def test_digest_sha256_is_hashlib_s_for_every_size_and_update(size):
    import hashlib

    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert digest.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    grown, reference = digest.sha256(data[:size // 2]), hashlib.sha256(data[:size // 2])
    grown.update(data[size // 2:])
    reference.update(data[size // 2:])
    assert grown.copy().digest() == reference.digest() and grown.hexdigest() == reference.hexdigest()


def test_a_warm_process_does_not_load_openssl_for_its_hashes(cold_then_warm):
    _, _, _, warm, _ = cold_then_warm
    assert "_hashlib" not in warm["modules"] and "hashlib" not in warm["modules"]


def test_a_wrapped_compiler_is_asked_again_when_the_compiler_it_runs_changes(tmp_path, monkeypatch):
    """`ccache g++`: the wrapper's file does not change when g++ is installed again; g++'s file does."""
    monkeypatch.setattr(compiler, "_found", {})
    wrapper = tmp_path / "wrap"
    wrapper.write_text('#!/bin/sh\nexec "$@"\n')
    wrapper.chmod(0o755)
    inner_dir = tmp_path / "bin"
    inner_dir.mkdir()
    _logging_compiler(inner_dir, "innercc 1.0")
    monkeypatch.setenv("PATH", f"{inner_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    with opkit.config.change_flags(compiledir=str(tmp_path / "cache")):
        command = (str(wrapper), "g++")
        assert compiler._identify(command).endswith("innercc 1.0")
        assert compiler._identify(command).endswith("innercc 1.0")
        assert (inner_dir / "log").read_text().count("asked") == 1
        _logging_compiler(inner_dir, "innercc 2.0")
        assert compiler._identify(command).endswith("innercc 2.0")
        assert (inner_dir / "log").read_text().count("asked") == 2

"""Shared fixtures: no test touches the user's real compile cache, nor runs stale bytecode."""

import re
import sys

import pytest


def pytest_addoption(parser):
    parser.addoption("--soak-part", metavar="K/N", default=None, type=soak_part,
                     help="run only part K of N of the soak tests (each case falls in one part, the same on every run); "
                          "the other tests are untouched. .ci/run runs one part per commit")


def soak_part(text: str) -> tuple[int, int]:
    """Parse --soak-part's `K/N` (1 <= K <= N)."""
    import argparse

    part, _, count = text.partition("/")
    if not (part.isdigit() and count.isdigit() and 1 <= int(part) <= int(count)):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 1 <= K <= N (for example 2/5)")
    return int(part), int(count)


def pytest_collection_modifyitems(config, items):
    """The long sweeps' cases that only `-m soak` runs (soak_cases.CASES): the README's run leaves them out."""
    import soak_cases

    soak_cases.mark(items)
    if config.getoption("soak_part"):
        part, count = config.getoption("soak_part")
        kept, other = [], []
        for item in items:
            outside = item.get_closest_marker("soak") and soak_cases.part_of(item.nodeid, count) != part
            (other if outside else kept).append(item)
        if other:
            config.hook.pytest_deselected(items=other)
            items[:] = kept
    # Before `-m` deselects: tests/docs/test_soak_cases.py reads the whole files' marks from here, where this
    # session collected them (else it collects them in a child process).
    if all("::" not in str(arg) for arg in config.args):
        soak_cases.COLLECTED[:] = [(item.nodeid, item.get_closest_marker("soak") is not None) for item in items]


def pytest_configure(config):
    """Fix hypothesis's draws in every process (helpers/fixed_draws.py). Compile opkit's modules to bytecode
    once, in the process that starts the session (before xdist's workers).

    The tests' child processes write no .pyc (no_bytecode_files), but they read opkit's: without them
    each of the run's thousand-odd children that imports opkit compiled its source again (about 0.25 s
    of CPU each). An editable install has none until something writes them; pip's copy has them.
    Nothing a test writes is compiled here, so no stale bytecode can hide an edit.
    """
    from helpers.fixed_draws import fix_draws

    fix_draws()  # the same hypothesis examples in any test order (helpers/fixed_draws.py)
    if not hasattr(config, "workerinput"):
        import compileall
        import pathlib

        import opkit

        compileall.compile_dir(pathlib.Path(opkit.__file__).parent, quiet=2, rx=re.compile(r"[/\\]templates[/\\]"))


@pytest.fixture(scope="session", autouse=True)
def no_bytecode_files():
    """Write no .pyc file, in this process or its children, whatever the caller's environment.

    Tests write a Python module, run it in a new process, edit it and run it again within
    the same second. Python takes a .pyc as current when the source's mtime (in whole
    seconds) and size match, so an edit of the same length would run the old code
    (tests/cop/test_module_identity.py did, where PYTHONDONTWRITEBYTECODE was unset).
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONDONTWRITEBYTECODE", "1")
        patch.setattr(sys, "dont_write_bytecode", True)
        yield


@pytest.fixture(scope="session", autouse=True)
def private_compiledir(tmp_path_factory):
    """Point OPKIT_COMPILEDIR and config.compiledir at a session temporary directory.

    Under pytest-xdist (`-n auto`) every worker is a session of its own; they share one
    compile cache, beside their own temporary directories, so no module is compiled once
    per worker (and the cache's cross-process locking is exercised on every run).
    OPKIT_TEST_COMPILEDIR names the directory instead, for runs that share one: .ci/run's
    runs after the README's (the soak part, the DebugMode slice) use the suite's cache.
    The user's own OPKIT_COMPILEDIR is never used.
    """
    import os
    import pathlib

    from opkit.config import config

    if os.environ.get("OPKIT_TEST_COMPILEDIR"):
        path = pathlib.Path(os.environ["OPKIT_TEST_COMPILEDIR"]).resolve()
        path.mkdir(parents=True, exist_ok=True)
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        path = tmp_path_factory.getbasetemp().parent / "opkit-compiledir"
        path.mkdir(exist_ok=True)
    else:
        path = tmp_path_factory.mktemp("opkit-compiledir")
    old = config.compiledir
    with pytest.MonkeyPatch.context() as patch:
        # The environment variable reaches subprocesses, which read config afresh.
        patch.setenv("OPKIT_COMPILEDIR", str(path))
        config.compiledir = str(path)
        try:
            yield path
        finally:
            config.compiledir = old


@pytest.fixture
def seeded_compiledir(tmp_path, monkeypatch):
    """A private compile cache, as opkit's own opkit_compiledir fixture makes one (OPKIT_COMPILEDIR and
    config.compiledir), that starts with the session cache's precompiled header and host answers
    (helpers.caches.seeded): the test compiles only its own modules there."""
    import pathlib

    from helpers.caches import seeded
    from opkit.config import config

    path = pathlib.Path(seeded(tmp_path / "opkit-cache"))
    monkeypatch.setenv("OPKIT_COMPILEDIR", str(path))
    with config.change_flags(compiledir=str(path)):
        yield path


TINY_EXTENSION = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef TINY_OFFSET
#define TINY_OFFSET 0
#endif

static PyObject *add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add() takes two ints");
        return NULL;
    }
    long a = PyLong_AsLong(args[0]), b = PyLong_AsLong(args[1]);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(a + b + @OFFSET@ + TINY_OFFSET);
}

static PyMethodDef methods[] = {
    {"add", (PyCFunction)(void (*)(void))add, METH_FASTCALL, "Add two ints."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "@NAME@", NULL, -1, methods};

PyMODINIT_FUNC PyInit_@NAME@(void) { return PyModule_Create(&moddef); }
"""


def make_tiny_source(name, offset=0):
    """Return the C++ source of extension module `name` whose add(a, b) returns a + b + offset."""
    return TINY_EXTENSION.replace("@NAME@", name).replace("@OFFSET@", str(offset))


@pytest.fixture
def tiny_source():
    """Return make_tiny_source: a hand-written CPython extension with one METH_FASTCALL function."""
    return make_tiny_source


ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def installed_opkit_distribution() -> str:
    """Return the distribution that registers opkit's own ops here; it must be `opkit-sdk` (SPEC 11)."""
    from importlib.metadata import entry_points

    names = [ep.dist.name for ep in entry_points(group="opkit") if ep.value == "opkit.plugins.builtin"]
    assert names == ["opkit-sdk"], f"opkit's own plugin is registered by {names}, expected ['opkit-sdk']"
    return names[0]
INSTALLED_IN_PLUGIN_VENV = (
    "examples/vector_times_vector",
    "plugins/opkit-tutorial-ops",
    "tests/data/plugins/opkit-test-broken",
    "tests/data/plugins/opkit-test-dupe-a",
    "tests/data/plugins/opkit-test-dupe-b",
)


@pytest.fixture(scope="module")
def vtv_class():
    """The tutorial's VectorTimesVector, imported from examples/ (the package is not installed here)."""
    import sys

    path = str(ROOT / "examples" / "vector_times_vector")
    before = set(sys.modules)
    sys.path.insert(0, path)
    try:
        from vector_times_vector.op import VectorTimesVector
    finally:
        sys.path.remove(path)
    yield VectorTimesVector
    # Forget only what this fixture imported: a test module that imported the package itself
    # (test_big_graphs) keeps it, or its op class would lose its source file (and its .c file).
    for name in [m for m in sys.modules if m.split(".")[0] == "vector_times_vector" and m not in before]:
        del sys.modules[name]


class PluginVenv:
    """A virtual environment whose packages come from real `pip install`s."""

    def __init__(self, root):
        import sys

        self.root = root
        self.python = str(root / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python"))

    def run(self, *args, cwd=None, env=None, check=True, timeout=600):
        """Run this venv's python with `args`; return the CompletedProcess (text output)."""
        import os
        import subprocess

        environ = dict(os.environ)
        environ.pop("OPKIT_DISABLE_PLUGINS", None)  # only what a test asks for
        environ.update(env or {})
        result = subprocess.run([self.python, *args], cwd=cwd, env=environ, capture_output=True, text=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} exited with {result.returncode}\n"
                                 f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        return result

    def pip_install(self, *paths):
        """pip-install local projects (no dependencies: they all come from the host environment)."""
        return self.run("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", *map(str, paths))

    @classmethod
    def create(cls, base):
        """Make a venv under `base` without pip that sees this interpreter's site-packages (.pth)."""
        import subprocess
        import sys
        import sysconfig

        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")], check=True)
        venv = cls(base / "venv")
        purelib = venv.run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
        host = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
        with open(f"{purelib}/_opkit_host_site.pth", "w", encoding="utf-8") as handle:
            handle.writelines(f"import site; site.addsitedir({path!r})\n" for path in host)
        if venv.run("-c", "import setuptools, wheel", check=False).returncode != 0:
            venv.run("-m", "pip", "install", "-q", "--disable-pip-version-check", "wheel")  # bdist_wheel, old setuptools
        return venv


@pytest.fixture(scope="session")
def plugin_venv(tmp_path_factory):
    """Return a PluginVenv with the example, first-party and fake plugin packages installed (once per session).

    The venv is made without pip and sees this interpreter's site-packages through a
    `.pth` file, so opkit (as installed here, with its entry points), numpy, pytest
    and pip are shared rather than downloaded; each plugin package is then a real
    `pip install` (from a copy, so no build files land in the repository).
    """
    import shutil

    base = tmp_path_factory.mktemp("plugin-venv")
    venv = PluginVenv.create(base)
    ignore = shutil.ignore_patterns("__pycache__", "build", "*.egg-info", ".pytest_cache")
    copies = [shutil.copytree(ROOT / project, base / "src" / project, ignore=ignore)
              for project in INSTALLED_IN_PLUGIN_VENV]
    venv.pip_install(*copies)
    return venv


# -- plugins: fake entry points (tests/plugins) ----------------------------------------------------------------------

class FakeDistribution:
    def __init__(self, name, version="1.0"):
        self.name, self.version, self.metadata = name, version, {"Name": name}


class FakeEntryPoint:
    """Duck-types importlib.metadata.EntryPoint: `load()` returns the plugin or raises."""

    def __init__(self, name, plugin, dist, version="1.0"):
        self.name, self.value, self.group = name, f"fake_{name}", "opkit"
        self.plugin, self.dist = plugin, FakeDistribution(dist, version)

    def load(self):
        if isinstance(self.plugin, BaseException):
            raise self.plugin
        return self.plugin


@pytest.fixture
def installed(monkeypatch):
    """Return install(*entry_points): make them the only `opkit` entry points, then reload lazily."""
    import importlib.metadata

    from opkit.plugins import manager

    calls = []

    def install(*entry_points):
        def entry_points_of(group=None):
            calls.append(group)
            return list(entry_points) if group == "opkit" else []

        monkeypatch.setattr(importlib.metadata, "entry_points", entry_points_of)
        manager.reset_plugins()
        return calls

    monkeypatch.delenv("OPKIT_DISABLE_PLUGINS", raising=False)
    yield install
    manager.reset_plugins()

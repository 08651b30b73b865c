"""opkit builds modules, and reports compile errors, with the oldest setuptools it allows and the newest.

Each venv is made with `python -m venv`, gets setuptools pinned (plus wheel, which
old setuptools needs to build a wheel) from the package index pip is configured
with, and then opkit itself with its dependencies, from a copy of this tree, with
`--no-build-isolation`: so that this setuptools also builds opkit, which checks
the `[build-system]` bound in pyproject.toml: setuptools < 62.3 ignores the
recursive `templates/**/*` package-data glob (opkit installs without
templates/fastcall.cpp), and on Python 3.12+ setuptools < 66.1 cannot run at all
(pkg_resources uses pkgutil.ImpImporter); setuptools < 77 cannot read `license` as an SPDX string
with `license-files` (PEP 639), so the bound is 77.0.1 (77.0.0 is not on PyPI). A script then compiles a graph, a
hand-written C file with an error in it, and checks the CompileError.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NEWEST_SETUPTOOLS = "84.2.1"  # what a fresh venv's `pip install setuptools` gets (pip index versions setuptools)


def _oldest_allowed():
    """Return the lowest setuptools version pyproject.toml allows (its `setuptools>=X` bounds must agree)."""
    text = (ROOT / "pyproject.toml").read_text()
    bounds = set(re.findall(r'"setuptools>=([0-9.]+)"', text))
    assert len(bounds) == 1, f"pyproject.toml names different setuptools bounds: {bounds}"
    return bounds.pop()


SCRIPT = textwrap.dedent(r'''
    import json, os, pathlib, sys, tempfile
    import numpy as np
    import setuptools
    import opkit, opkit.tensor as ot
    from opkit.cop.source.cop import COp

    out = {"setuptools": setuptools.__version__, "opkit": os.path.dirname(opkit.__file__)}
    x = ot.lvector("x")
    out["result"] = opkit.function([x], (x + 3) * x)(np.arange(4)).tolist()

    work = pathlib.Path(tempfile.mkdtemp())
    c_file = work / "broken_op.c"
    c_file.write_text("#section support_code_apply\n"
                      "int APPLY_SPECIFIC(broken)(PyArrayObject* x, PyArrayObject** out)\n"
                      "{\n"
                      "    *out = NULL;\n"
                      "    return undeclared_name_in_user_code;\n"
                      "}\n")

    class BrokenOp(COp):
        __props__ = ("func_files", "func_name")

        def __init__(self, path, func_name=None):
            super().__init__(path, func_name)

        def make_node(self, x):
            return opkit.Apply(self, [x], [ot.dvector()])

    y = ot.dvector("y")
    try:
        opkit.function([y], BrokenOp(str(c_file), "APPLY_SPECIFIC(broken)")(y))
    except opkit.CompileError as error:
        out["error"] = {"text": str(error), "errors": error.errors, "command": error.command,
                        "source_path": error.source_path, "kept": os.path.exists(error.source_path),
                        "c_file": str(c_file)}
    print(json.dumps(out))
''')


def _make_venv(base, setuptools_version, source):
    venv = base / f"setuptools-{setuptools_version}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run = subprocess.run([*pip, f"setuptools=={setuptools_version}", "wheel"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    # With its dependencies as pyproject.toml states them (the pinned setuptools satisfies its own).
    run = subprocess.run([*pip, "--no-build-isolation", str(source)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"setuptools {setuptools_version} cannot build opkit:\n{run.stderr}"
    return python


@pytest.fixture(scope="session")
def toolchain_venvs(tmp_path_factory):
    """Return {setuptools version: venv python}: the oldest allowed and the newest setuptools."""
    base = tmp_path_factory.mktemp("toolchain")
    source = base / "opkit-src"
    shutil.copytree(ROOT / "opkit", source / "opkit", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    return {version: _make_venv(base, version, source) for version in (_oldest_allowed(), NEWEST_SETUPTOOLS)}


@pytest.mark.soak  # two venvs and pip installs: minutes (`-m soak`); the default run builds with this venv's setuptools
@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_build_and_compile_errors_with_setuptools(toolchain_venvs, which, tmp_path):
    version = _oldest_allowed() if which == "oldest" else NEWEST_SETUPTOOLS
    python = toolchain_venvs[version]
    env = {**os.environ, "OPKIT_COMPILEDIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([python, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""  # nothing printed, not even a warning
    out = json.loads(run.stdout)
    assert out["setuptools"] == version
    assert not out["opkit"].startswith(str(ROOT))  # the installed copy, built by this setuptools
    assert out["result"] == [0, 4, 10, 18]
    error = out["error"]
    assert error["errors"][0].startswith(f"{error['c_file']}:5:")
    assert "undeclared_name_in_user_code" in error["errors"][0]
    lines = error["text"].splitlines()
    assert lines[0].startswith("compiling the C++ module") and lines[1].startswith(f"{error['c_file']}:5:")
    assert f"full source kept at {error['source_path']}" in lines and error["kept"]
    assert "while compiling:" in lines and any("BrokenOp" in line for line in lines)
    assert "-c" in error["command"] and error["command"][0].endswith(("g++", "c++", "clang++"))


def test_oldest_allowed_setuptools_is_what_pyproject_says():
    text = (ROOT / "pyproject.toml").read_text()
    assert f'requires = ["setuptools>={_oldest_allowed()}"]' in text

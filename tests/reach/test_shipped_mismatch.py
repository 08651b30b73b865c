"""A shipped module that does not load here is named, with what it was built for and why it does not fit.

In the MissingModuleError of a machine without a compiler, and in `opkit doctor`.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from helpers.caches import seeded
from helpers.shipped import BUILD, OPKIT, make_package

NO_COMPILER = "cxx=/nonexistent/bin/c++"
RUN = textwrap.dedent("""
    import numpy as np, opkit
    a = np.arange(4.0)
    try:
        opkit.ops.vector_times_vector.compute(a, a)
    except opkit.MissingModuleError as exc:
        print(exc)
""")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The example's package with one module shipped by a real `opkit build --into` (once for the module)."""
    return make_package(tmp_path_factory.mktemp("mismatch"))


@pytest.fixture
def package(built, tmp_path):
    """A copy of `built`'s package of the test's own, to damage or rebuild: (its directory, the env that sees it).

    The copy is what a second install of the package is (shipped keys leave out paths); the test's compile cache
    starts as make_package's does (seeded), so it holds none of the module fixture's builds."""
    into, env = built
    site = shutil.copytree(into.parent, tmp_path / "site", symlinks=True)
    env = dict(env, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", OPKIT_COMPILEDIR=seeded(tmp_path / "cache"))
    return site / into.name, env


def entry_of(into):
    [entry] = [e for e in (into / "_opkit_modules").iterdir() if not e.name.startswith(".")]
    return entry, json.loads((entry / "meta.json").read_text())


def missing_module_error(env, cwd):
    result = subprocess.run([sys.executable, "-c", RUN], env=dict(env, OPKIT_FLAGS=NO_COMPILER), cwd=cwd,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def doctor(env, cwd, flags=""):
    result = subprocess.run([*OPKIT, "doctor"], env=dict(env, OPKIT_FLAGS=flags), cwd=cwd, capture_output=True,
                            text=True, timeout=120)
    return result.returncode, result.stdout


def test_a_truncated_shipped_module_is_named_with_why_it_was_not_used(package, tmp_path):
    into, env = package
    entry, meta = entry_of(into)
    so = entry / meta["so_name"]
    so.write_bytes(so.read_bytes()[:1000])
    text = missing_module_error(env, tmp_path)
    signature = "TensorType(float64, vector), TensorType(float64, vector)"
    assert f"installed packages ship VectorTimesVector for: ({signature})" in text
    damage = f"its shared object {so} is damaged: 1000 bytes where meta.json says {meta['so_size']}"
    assert f"  ({signature}) built for {built_for(meta)}: not used: {damage}" in text.splitlines()
    status, out = doctor(env, tmp_path)
    assert status == 1
    assert ("FAIL", f"vector_times_vector ({signature}) built for {built_for(meta)}: not used: {damage}") in \
        doctor_lines(out, "shipped module")


def doctor_lines(out, name):
    """Return (status, detail) of the doctor's lines for the check `name`."""
    found = []
    for line in out.splitlines():
        status, _, rest = line.partition("  ")
        if rest.lstrip().startswith(name + "  "):
            found.append((status.strip(), rest.lstrip()[len(name):].lstrip()))
    return found


def built_for(meta):
    return (f"Python {meta['python_abi']}, numpy C-API {meta['numpy_c_api']}, CPU {meta['cpu']}, "
            f"platform {meta['platform']}")


def test_a_module_shipped_for_another_cpu_baseline_says_so(package, tmp_path):
    into, env = package
    entry, meta = entry_of(into)
    (entry / meta["so_name"]).unlink(), (entry / "meta.json").unlink(), entry.rmdir()
    subprocess.run([*OPKIT, *BUILD, "--into", str(into)], env=dict(env, OPKIT_FLAGS="march=x86-64-v3"), check=True,
                   capture_output=True, timeout=300)
    entry, meta = entry_of(into)
    assert meta["cpu"].endswith("march=x86-64-v3")
    here = meta["cpu"].replace("x86-64-v3", "x86-64-v2")  # this machine's default baseline for shipped modules
    why = f"not used: built for CPU {meta['cpu']}, this machine has {here}"
    signature = "TensorType(float64, vector), TensorType(float64, vector)"
    text = missing_module_error(env, tmp_path)
    assert f"  ({signature}) built for {built_for(meta)}: {why}" in text.splitlines()
    status, out = doctor(env, tmp_path)
    assert doctor_lines(out, "shipped module") == [
        ("ok", f"vector_times_vector ({signature}) built for {built_for(meta)}: {why}")]
    assert "no installed op ships compiled modules" not in out


def test_a_module_shipped_by_another_python_says_so(package, tmp_path):
    """What a wheel built by another Python carries: its meta.json names that Python (and its key differs)."""
    into, env = package
    entry, meta = entry_of(into)
    meta["python_abi"], meta["key"] = "cpython-399-x86_64-linux-gnu", "0" * len(meta["key"])
    (entry / "meta.json").write_text(json.dumps(meta))
    entry.rename(entry.with_name(meta["key"]))
    text = missing_module_error(env, tmp_path)
    assert f"Python cpython-399-x86_64-linux-gnu, this machine has " in text
    assert "fits this machine" not in text


def test_with_a_compiler_a_truncated_shipped_module_is_said_once_and_rebuilt(package, tmp_path):
    into, env = package
    entry, meta = entry_of(into)
    so = entry / meta["so_name"]
    so.write_bytes(so.read_bytes()[:1000])
    code = textwrap.dedent("""
        import warnings, numpy as np, opkit
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            for _ in range(2):
                a = np.arange(4.0)
                assert (opkit.ops.vector_times_vector.compute(a, a) == a * a).all()
        print(*[f"{w.category.__name__}: {w.message}" for w in caught], sep="\\n")
    """)
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"RuntimeWarning: the shipped module in {entry} is not used: its shared object {so} is damaged: 1000 bytes "
        f"where meta.json says {meta['so_size']}"]

"""benchmarks/compile_census.py charges each compiler run to the test that caused it, and says why it cannot."""

import os
import pathlib
import re
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "compile_census.py"

A_TEST = """
import numpy as np
import opkit
import opkit.tensor as T


def test_adds_one():
    x = T.dvector("x")
    f = opkit.function([x], T.exp(x) + 1)
    assert np.array_equal(f(np.arange(3.0)), np.exp(np.arange(3.0)) + 1)
"""


def census(tmp_path, *args, **env):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env={**os.environ, **env})


def test_each_compile_is_charged_to_the_test_that_ran_it(tmp_path):
    (tmp_path / "test_tiny.py").write_text(A_TEST)
    log = tmp_path / "runs.tsv"
    done = census(tmp_path, "--log", str(log), "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "test_tiny.py",
                  OPKIT_COMPILEDIR=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    share = re.search(r"the compiler: ([\d.]+) s CPU \((\d+)% of the run's\), compile (\d+) runs", done.stdout)
    assert share and float(share[1]) > 0 and int(share[3]) >= 1, done.stdout
    # the graph's module, and opkit's call path in a fresh cache: every compile ran inside the test
    row = re.search(r"^ +([\d.]+) s +(\d+)  test_tiny.py::test_adds_one$", done.stdout, re.M)
    assert row and int(row[2]) == int(share[3]), done.stdout
    kinds = [line.split("\t")[0] for line in log.read_text().splitlines()]
    assert "compile" in kinds and "link" in kinds, kinds


def test_without_g_plus_plus_on_path_it_says_so(tmp_path):
    done = census(tmp_path, "-q", PATH=str(tmp_path))
    assert done.returncode == 2
    assert "g++ is not on PATH: the census wraps it (Debian: apt-get install g++)" in done.stderr


def test_a_compiler_named_in_opkit_flags_is_refused(tmp_path):
    done = census(tmp_path, "-q", OPKIT_FLAGS="cxx=clang++")
    assert done.returncode == 2
    assert "OPKIT_FLAGS names a compiler (cxx=...): the census wraps g++ on PATH; unset it" in done.stderr

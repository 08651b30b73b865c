"""benchmarks/figure_reduce.py runs on its own and reports both sum(x*y) figures (reported, never asserted)."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

FIGURE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "figure_reduce.py"


@pytest.mark.soak  # a benchmark run: compiles and times in subprocesses (`-m soak`)
def test_quick_sum_xy_prints_both_figures_with_their_baselines(tmp_path):
    result = subprocess.run([sys.executable, str(FIGURE), "--quick"], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert any(line.startswith("| opkit ") for line in rows)
    assert any("numpy (baseline)" in line for line in rows)
    has_numba = importlib.util.find_spec("numba") is not None  # a benchmark-only dependency
    assert any("numba (1 thread) (baseline)" in line for line in rows) == has_numba

"""benchmarks/figure_reductions.py runs on its own and prints the reductions table (reported, never asserted)."""

import pathlib
import re
import subprocess
import sys

import pytest

FIGURE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "figure_reductions.py"


@pytest.mark.soak  # a benchmark run: compiles and times in subprocesses (`-m soak`)
def test_quick_argmax_rows_have_numpy_and_both_thread_settings(tmp_path):
    result = subprocess.run([sys.executable, str(FIGURE), "--quick", "--threads", "2", "--only", "argmax"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert all(column in lines[1] for column in ("numpy ms", "opkit 1 thread ms", "opkit 2 threads ms"))
    rows = [line for line in lines if line.startswith("| argmax ")]
    assert len(rows) == 12  # axis None, 0, 1 x C, F x keepdims
    assert all(len(re.findall(r"\| \d+\.\d\dx +\|", line)) == 2 for line in rows)  # both ratios to numpy
    assert any(line.startswith("worst opkit 1 thread: argmax") for line in lines)

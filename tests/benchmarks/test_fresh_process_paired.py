"""benchmarks/fresh_process_paired.py compares checkouts' fresh processes (figures are printed, never asserted)."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "fresh_process_paired.py"


@pytest.mark.soak  # a benchmark run: compiles and times in subprocesses (`-m soak`)
def test_two_checkouts_get_a_row_each_with_cpu_and_wall_over_numpy(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(ROOT), str(ROOT), "--rounds", "2"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| 0: ", "| 1: ", "| import numpy"))]
    assert len(rows) == 3, done.stdout
    for row in rows[1:]:
        assert re.fullmatch(r"\| \d: .+ \| [\d.]+ \| [+-][\d.]+ \| [\d.]+ \| [+-][\d.]+ \|", row), row


def test_a_folder_that_is_not_an_opkit_checkout_is_refused_by_name(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"{tmp_path} is not an opkit checkout: it has no opkit/__init__.py" in done.stderr

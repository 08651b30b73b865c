"""benchmarks/figure_bridge_pymc.py: skipped with its reason where PyMC is absent (never asserted on timings).

Where PyMC is installed the figure itself runs (CI's second venv does not run benchmarks; run it with the python of
a venv of Python >= 3.12 with PyMC: benchmarks/run.py --only bridge_pymc): here, one quick run checks its contenders.
"""

import importlib.util
import json
import math
import pathlib
import subprocess
import sys

import pytest

RUN = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
# run.py in an interpreter where `import pymc` fails, whether or not PyMC is installed
WITHOUT_PYMC = ("import runpy, sys; sys.modules['pymc'] = None; sys.argv = [sys.argv[1]] + sys.argv[2:]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")


def test_the_figure_is_skipped_with_its_reason_where_pymc_is_absent(tmp_path):
    report_path = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-c", WITHOUT_PYMC, str(RUN), "--quick", "--only", "bridge_pymc",
                             "--no-pytensor", "--json", str(report_path)],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    reason = (f"PyMC is not installed in this interpreter ({sys.executable}): pip install pymc, into a venv of "
              "Python >= 3.12 (PyMC 6 needs it), then run benchmarks/run.py with that venv's python")
    assert f"skipped: {reason}\n" in result.stdout
    report = json.loads(report_path.read_text())
    assert report["errors"] == {} and report["figures"] == [] and report["skipped"] == {"bridge_pymc": reason}


def test_quick_bridge_pymc_figure_reports_every_contender_where_pymc_is(tmp_path):
    if importlib.util.find_spec("pymc") is None:  # the figure's skip is the test above
        pytest.skip("PyMC is not installed (PyMC 6 needs Python >= 3.12)")
    report_path = tmp_path / "report.json"
    result = subprocess.run([sys.executable, str(RUN), "--quick", "--only", "bridge_pymc", "--json",
                             str(report_path)], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    [figure] = json.loads(report_path.read_text())["figures"]
    assert figure["baseline"] == "pytensor" and set(figure["contenders"]) == {"opkit", "pytensor", "object mode"}
    for stats in figure["contenders"].values():
        assert math.isfinite(stats["median"]) and stats["median"] > 0

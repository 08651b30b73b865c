"""benchmarks/figure_bridge_jax.py runs through benchmarks/run.py and reports every contender (never asserted)."""

import json
import math
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("jax")

RUN = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


def test_quick_bridge_jax_figure_reports_every_contender(tmp_path):
    report_path = tmp_path / "report.json"
    result = subprocess.run([sys.executable, str(RUN), "--quick", "--only", "bridge_jax_1", "--no-pytensor",
                             "--json", str(report_path)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(report_path.read_text())
    assert report["errors"] == {}
    [figure] = report["figures"]
    assert figure["name"] == "bridge_jax_1" and figure["baseline"] == "jax.ffi no-op"
    assert set(figure["contenders"]) == {"opkit", "jax.ffi no-op", "jax native", "opkit call"}
    for stats in figure["contenders"].values():
        assert math.isfinite(stats["median"]) and stats["median"] > 0
    assert isinstance(figure["met"], bool)

"""benchmarks/figure_gpu.py runs: the cold compile everywhere, the GPU figures where CuPy finds a device
(figures are reported, never asserted)."""

import json
import math
import pathlib
import subprocess
import sys
from importlib.util import find_spec

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "figure_gpu.py"


@pytest.mark.skipif(find_spec("nvidia") is None or find_spec("nvidia.cuda_nvrtc") is None,
                    reason="needs NVRTC: pip install 'opkit-sdk[cuda]'")
def test_the_quick_gpu_benchmark_reports_what_this_machine_can_measure(tmp_path):
    report_path = tmp_path / "gpu.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", str(report_path)], capture_output=True,
                          text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text())
    [cold] = [figure for name, figure in report["figures"].items() if name.startswith("cold compile of a kernel")]
    assert set(cold["contenders"]) == {"opkit (node -> cached cubin)", "NVRTC alone (same text, options)"}
    assert all(math.isfinite(c["median"]) and c["median"] > 0 for c in cold["contenders"].values())
    assert "opkit's own part: " in done.stdout
    assert done.stdout.count("through device='cuda-interpret': matches numpy") == 2
    if report["device_problem"]:
        assert report["needs_gpu"] == ["fused (x*y+z)*2-x at 10^6, 10^7, 10^8", "sum(x*y) at 10^8", "call overhead",
                                       "fresh-process load of a cached kernel module"]
        assert f"needs a GPU ({report['device_problem']})" in done.stdout
    else:
        names = set(report["figures"])
        assert {"(x*y+z)*2-x, float32, n=1e+06", "(x*y+z)*2-x, float32, n=1e+07", "sum(x*y), float32, n=1e+07",
                "call overhead, 1 element", "a cached kernel module in a fresh process"} <= names

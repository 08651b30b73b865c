"""Issue 45.3: `python benchmarks/run.py --quick` where JAX, PyTorch or PyMC is missing skips their figures, one line
each naming what is missing and how to install it, and exits 0: no traceback, no path of another machine."""

import json
import pathlib
import subprocess
import sys

RUN = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
# run.py in an interpreter where these imports fail, whether or not they are installed here
HIDING = ("import runpy, sys; [sys.modules.__setitem__(name, None) for name in ('jax', 'torch', 'pymc')]; "
          "sys.argv = [sys.argv[1]] + sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')")
SKIPS = {
    "bridge_jax_1": "JAX is not installed in this interpreter ({python}): pip install jax",
    "bridge_jax_1e6": "JAX is not installed in this interpreter ({python}): pip install jax",
    "torch_bridge_1": "PyTorch is not installed in this interpreter ({python}): pip install torch --index-url "
                      "https://download.pytorch.org/whl/cpu",
    "torch_bridge_1e6": "PyTorch is not installed in this interpreter ({python}): pip install torch --index-url "
                        "https://download.pytorch.org/whl/cpu",
    "bridge_pymc": "PyMC is not installed in this interpreter ({python}): pip install pymc, into a venv of Python "
                   ">= 3.12 (PyMC 6 needs it), then run benchmarks/run.py with that venv's python",
}


def test_figures_of_missing_frameworks_are_skipped_with_how_to_install_them(tmp_path):
    report_path = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-c", HIDING, str(RUN), "--quick", "--no-pytensor", "--json",
                             str(report_path), "--only", *SKIPS], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = {name: reason.format(python=sys.executable) for name, reason in SKIPS.items()}
    for name, reason in expected.items():
        assert f"## {name}\nskipped: {reason}\n" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr and "FAILED" not in result.stdout
    assert f"skipped (not installed here): {', '.join(SKIPS)}" in result.stdout
    report = json.loads(report_path.read_text())
    assert report["errors"] == {} and report["figures"] == [] and report["skipped"] == expected


def figure_names(cwd) -> list[str]:
    """The names of run.py's figures (run.FIGURES), listed by a process where JAX, torch and PyMC do not import."""
    code = "import sys; sys.path.insert(0, sys.argv[1]); import run; print(' '.join(run.FIGURES))"
    hidden = ("import sys; [sys.modules.__setitem__(name, None) for name in ('jax', 'torch', 'pymc')]; "
              "sys.argv = sys.argv[1:]; exec(sys.argv[0])")
    listed = subprocess.run([sys.executable, "-c", hidden, code, str(RUN.parent)], capture_output=True, text=True,
                            timeout=120, cwd=cwd)
    assert listed.returncode == 0, listed.stderr
    return listed.stdout.split()


def test_every_figure_that_needs_a_framework_says_which(tmp_path):
    """Every figure of run.py is listed, whatever is installed: one of a missing framework is a skip, not unknown."""
    assert set(SKIPS) <= set(figure_names(tmp_path))

"""The example's op package made importable under a folder, with a module shipped by `opkit build --into`
(real `opkit` processes, no venv): tests/reach/test_shipped_publish.py and test_shipped_mismatch.py."""

import os
import shutil
import subprocess
import sys

from conftest import ROOT
from helpers.caches import seeded

OPKIT = [sys.executable, "-m", "opkit.cli"] if not shutil.which("opkit") else [shutil.which("opkit")]
BUILD = ["build", "vector_times_vector", "--dtypes", "float64,float64"]


def make_package(base):
    """Put the example's package, importable, under `base` and ship one module; return (its directory, env)."""
    site = base / "site"
    shutil.copytree(ROOT / "examples" / "vector_times_vector" / "vector_times_vector", site / "vector_times_vector",
                    ignore=shutil.ignore_patterns("__pycache__", "_opkit_modules"))
    info = site / "vector_times_vector-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vector-times-vector\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[opkit]\nvector_times_vector = vector_times_vector.plugin\n")
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", OPKIT_COMPILEDIR=seeded(base / "cache"),
               PYTHONUNBUFFERED="1")
    env.pop("OPKIT_DISABLE_PLUGINS", None)
    env.pop("OPKIT_FLAGS", None)
    into = site / "vector_times_vector"
    build(into, env)
    return into, env


def build(into, env, **kwargs):
    return subprocess.run([*OPKIT, *BUILD, "--into", str(into)], env=env, capture_output=True, text=True,
                          check=True, timeout=300, **kwargs)

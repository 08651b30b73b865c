"""What a figure needs beyond opkit and numpy, and the skip that says how to get it.

A figure whose framework is not installed in the interpreter running it is skipped, one line naming what is
missing and the command that installs it, never an error (benchmarks/run.py exits 0 for it).
"""

from __future__ import annotations

import importlib.util
import sys


class FigureSkipped(Exception):
    """The figure cannot run in this interpreter (benchmarks/run.py reports the reason, not an error)."""

    skip_figure = True


# module -> (what it is, how to install it)
OPTIONAL = {
    "torch": ("PyTorch", "pip install torch --index-url https://download.pytorch.org/whl/cpu"),
    "jax": ("JAX", "pip install jax"),
    "scipy": ("SciPy", "pip install scipy"),
    "pymc": ("PyMC", "pip install pymc, into a venv of Python >= 3.12 (PyMC 6 needs it), then run "
                     "benchmarks/run.py with that venv's python"),
}


def require(module: str) -> None:
    """Raise FigureSkipped, naming `module`'s framework and its install command, if it is not importable here."""
    what, install = OPTIONAL[module]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules (a test hides it so)
        found = False
    if not found or sys.modules.get(module, True) is None:
        raise FigureSkipped(f"{what} is not installed in this interpreter ({sys.executable}): {install}")

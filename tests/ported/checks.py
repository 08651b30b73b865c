"""What every ported op goes through: numpy's (or scipy's) numbers, in every way opkit runs an op.

`run_everywhere(inputs, outputs, values)` compiles the graph in FAST_RUN (one C module),
FAST_COMPILE (perform) and, where every node has perform or C, DebugMode (perform against C,
inputs checked unmodified), and returns each mode's results: the tests compare them all with
the reference. `eager(op, *values)` is `op.compute`.
"""

from __future__ import annotations

import numpy as np
import pytest

import opkit

MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode")
# For a test of a graph that mixes a ported op with opkit's (a test taking `modes`): FAST_RUN and FAST_COMPILE in
# the README's run, DebugMode soak (`-m soak`); each op's own DebugMode runs by default in its every-mode test.
MIXED_GRAPH_MODES = pytest.mark.parametrize(
    "modes", [("FAST_RUN", "FAST_COMPILE"), pytest.param(("DebugMode",), marks=pytest.mark.soak)],
    ids=["FAST_RUN-FAST_COMPILE", "DebugMode"])
TOL = {"float32": dict(rtol=2e-5, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def run_everywhere(inputs, outputs, values, modes=MODES, debugmode=None):
    """Return {mode: list of output arrays} for the graph inputs -> outputs on `values`.

    `debugmode` replaces the default DebugMode instance (``opkit.DebugMode(repeats=20)`` for an op
    that calls into a numpy function whose caches fill over its first ten calls).
    """
    results = {}
    single = not isinstance(outputs, (list, tuple))
    for mode in modes:
        compiled_mode = debugmode if mode == "DebugMode" and debugmode is not None else mode
        f = opkit.function(inputs, outputs, mode=compiled_mode, on_unused_input="ignore")
        out = f(*[np.array(v, copy=True) for v in values])
        results[mode] = [out] if single else list(out)
    return results


def assert_matches(results, expected, dtype=None):
    """Each mode's outputs equal `expected` (a list of arrays) in dtype, shape and value."""
    for mode, outs in results.items():
        assert len(outs) == len(expected), mode
        for got, want in zip(outs, expected):
            want = np.asarray(want)
            got = np.asarray(got)
            assert got.shape == want.shape, (mode, got.shape, want.shape)
            if dtype is not None:
                assert got.dtype == np.dtype(dtype), (mode, got.dtype)
            np.testing.assert_allclose(got, want, err_msg=mode, **TOL.get(str(got.dtype), {}))


def rng(seed=0):
    return np.random.default_rng(seed)

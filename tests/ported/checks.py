"""What every ported op goes through: numpy's (or scipy's) numbers, in every way opkit runs an op.

`run_everywhere(inputs, outputs, values)` compiles the graph in FAST_RUN (one C module),
FAST_COMPILE (perform) and, where every node has perform or C, DebugMode (perform against C,
inputs checked unmodified), and returns each mode's results: the tests compare them all with
the reference. `eager(op, *values)` is `op.compute`. `verify_grad_compiled(fun, pt)` is verify_grad with the
gradient's C compiled once (for ops with perform: verify_grad on perform, then the compiled gradient against it).
"""

from __future__ import annotations

import numpy as np
import pytest

import opkit
import opkit.tensor as ot

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


def verify_grad_compiled(fun, pt, rng=None, mode="FAST_RUN", rtol=1e-7, atol=1e-9, **verify_grad_options):
    """opkit.testing.verify_grad with the gradient compiled once, not its three functions (for ops with perform: an op
    without one, Corr3dMM, compiles a module per node in FAST_COMPILE too, so its test calls verify_grad).

    verify_grad compiles the function's output, its cost and the cost's gradient in its mode: in FAST_RUN that is
    the forward op's C twice more (the op's every-mode test runs it against the reference). Here verify_grad runs
    in FAST_COMPILE (each op's perform: the same graph of the gradient, checked against finite differences of the
    same cost, nothing compiled), then the gradient function compiled in `mode` (the ops' C, the gradient graph's
    rewrites) is compared with that checked gradient on a random projection, to `rtol`/`atol` (float64: far tighter
    than verify_grad's 1e-4; the C of some special functions, psi's, differs from scipy's by 1e-10).
    """
    from opkit.testing import verify_grad

    pt = [np.array(p) for p in pt]
    verify_grad(fun, pt, rng=rng, mode="FAST_COMPILE", **verify_grad_options)
    inputs = [ot.tensor(p.dtype, shape=tuple(1 if s == 1 else None for s in p.shape), name=f"input {i}")
              for i, p in enumerate(pt)]
    output = fun(*inputs)
    projection = ot.tensor("float64", shape=(None,) * output.ndim, name="projection")
    grads = opkit.grad((projection * output).sum(), inputs, disconnected_inputs="ignore")
    out_shape = np.shape(opkit.function(inputs, output, mode="FAST_COMPILE")(*[p.copy() for p in pt]))
    r = np.random.default_rng(0).random(out_shape) + 0.5
    want, got = (opkit.function(inputs + [projection], grads, mode=m, on_unused_input="ignore")(
        *[p.copy() for p in pt], r) for m in ("FAST_COMPILE", mode))
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{mode} gradient of input {k}")

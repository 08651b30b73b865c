"""Per-call cost of a PyMC model's log-density and gradient whose mean is a bridged opkit op (issue 37, item 5).

    python benchmarks/figure_bridge_pymc.py [--quick]     # a Python >= 3.12 with PyMC installed

The model: 200 observations y ~ Normal(mean, sigma), w ~ Normal(0, 1) of 200 entries, sigma ~ HalfNormal(1),
with the mean ``w * x`` for the observed covariates x:
- opkit: the mean is ``as_pytensor_op(VectorTimesVector)(w, x)``, the tutorial's op (C code) with infer_shape and a
  grad that applies the op again, so its gradient is a second bridged node; PyTensor's numba backend calls the op's
  C through opkit's raw-buffer handler (opkit.bridge.pytensor_numba);
- pytensor (the baseline): the same model with the mean ``w * x``, PyTensor's own ops;
- object mode: the bridged model as PyTensor's numba backend ran it before (the op's perform in object mode).
Each contender is ``model.logp_dlogp_function()`` called on one point, as PyMC's NUTS calls it.
Target: at most 1.2x the pure-PyTensor model. Needs PyMC (PyMC 6 needs Python >= 3.12): the figure is skipped
where it is not installed.

``bridge_pymc_cold`` (issue 47, item 4): the same model from cold caches, compiled and sampled. Each sample is
a fresh process (this file, ``--cold-child NAME``) whose opkit, PyTensor and numba caches are new, empty folders;
it builds the model, compiles ``logp_dlogp_function``, calls it once and runs a short ``pm.sample`` (100 tuning
steps, 100 draws, one chain, one core, a fixed seed). Its value is the child's wall time from after ``import pymc``
to the end of sampling (opkit's import and the op's creation included; Python's start and PyMC's import, alike for
both, are not); the notes give each part's median, measured inside the child (see ``_cold_child``).
"""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile
import time

from context import Context, cache_environment
from needs import FigureSkipped, require  # noqa: F401  (FigureSkipped: where this figure's skip is defined)
from example_ops import shaped_vector_times_vector
from report import OPKIT, Figure, Target
from timing import Stats, call_sampler, interleave, run_checked

PURE = "pytensor"
OBJECT_MODE = "object mode"
SIZE = 200
# the short run of the cold figure
COLD_SAMPLE = {"draws": 100, "tune": 100, "chains": 1, "cores": 1, "random_seed": 1}


def model(pm, mean, xs, ys):
    """Return the PyMC model whose mean is `mean(w, x)`."""
    import pytensor.tensor as pt

    with pm.Model() as m:
        w = pm.Normal("w", 0.0, 1.0, shape=len(xs))
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", mean(w, pt.as_tensor(xs)), sigma, observed=ys)
    return m


def _logp_dlogp(m):
    function = m.logp_dlogp_function(ravel_inputs=True)
    function.set_extra_values({})
    from pymc.blocking import DictToArrayBijection

    return function, DictToArrayBijection.map(m.initial_point()).data


def _data():
    import numpy as np

    rng = np.random.default_rng(0)
    xs = rng.normal(size=SIZE)
    return xs, 0.7 * xs + rng.normal(0.0, 0.5, size=SIZE)


def _samplers(ctx: Context):
    require("pymc")
    import pymc as pm

    import numpy as np

    from opkit.bridge import pytensor_numba
    from opkit.bridge.pytensor import as_pytensor_op

    xs, ys = _data()
    op = as_pytensor_op(shaped_vector_times_vector())
    functions = {OPKIT: _logp_dlogp(model(pm, op, xs, ys)), PURE: _logp_dlogp(model(pm, lambda w, x: w * x, xs, ys))}
    direct = pytensor_numba.direct_function
    pytensor_numba.direct_function = _object_mode
    try:
        functions[OBJECT_MODE] = _logp_dlogp(model(pm, lambda w, x: op(w, x) + 0.0, xs, ys))
    finally:
        pytensor_numba.direct_function = direct
    expected = functions[PURE][0](functions[PURE][1])
    for name, (function, point) in functions.items():
        got = function(point)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-12, err_msg=name)
    return {name: call_sampler(function, (point,), ctx.budget) for name, (function, point) in functions.items()}


def _object_mode(op, node):
    from opkit.bridge.pytensor_numba import NotDirect

    raise NotDirect(f"{op}: object mode, as before the numba bridge (the benchmark's comparison)")


def bridge_pymc(ctx: Context) -> Figure:
    stats = interleave(_samplers(ctx), ctx.rounds(30, 7))
    notes = [f"logp and gradient of a PyMC model, {SIZE} observations, PyTensor's numba backend, one point "
             "(model.logp_dlogp_function)"]
    return Figure("bridge_pymc", f"PyMC logp+grad with a bridged opkit op, {SIZE} observations", "us", stats, PURE,
                  Target("ratio", 1.2), notes)


# The cold figure's parts, in the order printed: what each measured (the child's perf_counter, unless named).
COLD_PARTS = {
    "opkit import and op": "import opkit.bridge.pytensor and make the op (opkit only)",
    "model build": "pm.Model with the three variables",
    "logp_dlogp compile": "model.logp_dlogp_function(): PyTensor's rewrites and numba_funcify, less opkit's and "
                          "numba's compiles in it",
    "opkit modules": "opkit's compiles, all in logp_dlogp_function (time in opkit.bridge.slot_call.raw_slot: the "
                     "raw-buffer handler's module, the op's one-node module, the precompiled header)",
    "numba (compile)": "numba's compiles inside logp_dlogp_function (numba.core.event 'numba:compile', outermost)",
    "first call": "the first logp+grad call, less numba's compiles in it",
    "numba (first call)": "numba's compiles in the first call (the graph's function is jitted when first called)",
    "sampling": "pm.sample(draws=100, tune=100, chains=1, cores=1), less numba's compiles in it",
    "numba (sampling)": "numba's compiles in pm.sample (its own functions: a warm cache loads them)",
}


def _cold_child(name: str) -> dict:
    """Run the cold figure's work for contender `name` in this (fresh) process; return each part's seconds."""
    import numba.core.event as numba_event
    import pymc as pm

    start = time.perf_counter()
    parts = dict.fromkeys(COLD_PARTS, 0.0)
    numba_time = numba_event.TimingListener()
    numba_event.register("numba:compile", numba_time)

    def numba_seconds():
        return getattr(numba_time, "_duration", 0.0)

    xs, ys = _data()
    if name == OPKIT:
        from opkit.bridge import slot_call
        from opkit.bridge.pytensor import as_pytensor_op

        raw_slot = slot_call.raw_slot

        def timed_raw_slot(*args):
            began = time.perf_counter()
            try:
                return raw_slot(*args)
            finally:
                parts["opkit modules"] += time.perf_counter() - began

        slot_call.raw_slot = timed_raw_slot
        mean = as_pytensor_op(shaped_vector_times_vector())
    else:
        def mean(w, x):
            return w * x
    began = time.perf_counter()
    parts["opkit import and op"] = began - start
    m = model(pm, mean, xs, ys)
    parts["model build"] = time.perf_counter() - began

    def phase(part, numba_part, work):  # opkit's compiles, where any, counted in their own part only
        numba_before, opkit_before, began = numba_seconds(), parts["opkit modules"], time.perf_counter()
        result = work()
        parts[numba_part] = numba_seconds() - numba_before
        parts[part] = time.perf_counter() - began - parts[numba_part] - (parts["opkit modules"] - opkit_before)
        return result

    function, point = phase("logp_dlogp compile", "numba (compile)", lambda: _logp_dlogp(m))
    phase("first call", "numba (first call)", lambda: function(point))
    with m:
        phase("sampling", "numba (sampling)", lambda: pm.sample(**COLD_SAMPLE, progressbar=False,
                                                                compute_convergence_checks=False))
    return {"total": time.perf_counter() - start, "parts": parts}


def _cold_sampler(ctx: Context, name: str, parts: dict):
    """Return a sampler running the cold child of `name` with new, empty caches; it appends its parts to `parts`."""
    def sample():
        with tempfile.TemporaryDirectory(prefix="cold-", dir=ctx.workdir) as caches:
            env = ctx.subprocess_env()
            env.update(cache_environment(pathlib.Path(caches), env))
            child = [sys.executable, str(pathlib.Path(__file__).resolve()), "--cold-child", name]
            out = run_checked(child, env, ctx.cwd)
        result = json.loads(out.strip().splitlines()[-1])
        parts.setdefault(name, []).append(result["parts"])
        return result["total"]
    return sample


def bridge_pymc_cold(ctx: Context) -> Figure:
    require("pymc")
    parts: dict[str, list[dict]] = {}
    stats = interleave({name: _cold_sampler(ctx, name, parts) for name in (OPKIT, PURE)}, ctx.rounds(3, 1))
    notes = [f"the PyMC model of bridge_pymc ({SIZE} observations) from empty opkit, PyTensor and numba caches, "
             "a fresh process per sample: build, logp_dlogp_function, one call, pm.sample(draws=100, tune=100, "
             "chains=1, cores=1); seconds from after `import pymc` to the end of sampling"]
    for part, how in COLD_PARTS.items():
        medians = ", ".join(f"{name} {Stats([p[part] for p in parts[name]]).median:.2f} s" for name in parts)
        notes.append(f"{part}: {medians} ({how})")
    return Figure("bridge_pymc_cold", "PyMC model with a bridged op, cold caches: compile + sample", "s", stats,
                  PURE, Target("ratio", 2.0), notes)


FIGURES = {"bridge_pymc": bridge_pymc, "bridge_pymc_cold": bridge_pymc_cold}


def main(argv=None):
    import argparse
    import logging
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples")
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), default=sorted(FIGURES), help="figures to run")
    parser.add_argument("--cold-child", choices=[OPKIT, PURE], help=argparse.SUPPRESS)  # one sample of the cold figure
    args = parser.parse_args(argv)
    if args.cold_child:
        print(json.dumps(_cold_child(args.cold_child)))
        return
    logging.getLogger("opkit.bridge.pytensor_numba").setLevel(logging.ERROR)  # the object-mode contender's reason
    with tempfile.TemporaryDirectory(prefix="opkit-bench-pymc-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work))
        prepare_environment(ctx)
        for name in args.only:
            figure = FIGURES[name](ctx)
            print(f"{figure.name}: {figure.title}")
            print(detail_table(figure))
            for note in figure.notes:
                print(f"  {note}")
            for contender in figure.stats:
                print(f"  {contender}: {figure.stats[contender].median:.3g} {figure.unit}, "
                      f"{figure.ratio(contender):.2f}x the pure-PyTensor model")


if __name__ == "__main__":
    main()

"""Speed 3 (issue 26): eager calls at a compiled call's cost, and a fresh process's CPU time.

`eager_compute`: `mul.compute(a, b)` (warm) against the trusted compiled call `f(a, b)` of the same op.

Both run `x * y` on 1-element float64 vectors; `f` is `opkit.function([x, y], x * y)`
with `trust_input = True` (the `call_trusted` figure's function). `op.compute` is
served by the C dispatcher on (op, input types) that opkit.link.eager installs as
Op.compute, with the compiled function's argument checks kept. np.multiply is
shown for scale. Target: compute at most 1.5x the trusted call.

`fresh_process_cpu`: the `fresh_process` scripts (figures_process), measured by the
CPU time (user + system) the child and what it waited for used, not by wall time:
on a shared machine the wall time mostly measures the other processes. Target:
at most +30 ms over `python -c "import numpy"` (median of per-round differences).

    python benchmarks/run.py --only eager_compute fresh_process_cpu
"""

from __future__ import annotations

import time
import timeit

import numpy as np

import resource
import sys

from context import Context
from figures_process import IMPORT_NUMPY, _scripts, _warm_up
from report import OPKIT, Figure, Target, paired_delta
from timing import _calibrate, interleave, run_checked

TRUSTED = "opkit f(a, b), trusted"


def cpu_sampler(statement: str, namespace: dict, budget: float, unit: float = 1e-6):
    """Return a sampler of `statement`'s mean CPU time in `unit`s: timeit's loop, timed by this thread's clock.

    The thread's CPU clock leaves out the time other processes hold the core (2 shared
    cores make wall-clock microsecond figures swing by 3x); a call that neither
    sleeps nor waits costs the same CPU time either way.
    """
    timer = timeit.Timer(statement, globals=namespace, timer=time.thread_time)
    number = _calibrate(timer, budget)
    return lambda: timer.timeit(number) / number / unit


def eager_compute(ctx: Context) -> Figure:
    import opkit
    import opkit.tensor as ot
    from opkit.core.tensor.elementwise.basic import mul

    a, b = np.array([1.5]), np.array([0.75])
    x, y = ot.dvector("x"), ot.dvector("y")
    trusted = opkit.function([x, y], mul(x, y))
    trusted.trust_input = True
    for label, fn in ((OPKIT, mul.compute), (TRUSTED, trusted)):
        np.testing.assert_array_equal(fn(a, b), a * b, err_msg=label)
    namespace = {"op": mul, "f": trusted, "np": np, "a": a, "b": b}
    samplers = {OPKIT: cpu_sampler("op.compute(a, b)", namespace, ctx.budget),
                TRUSTED: cpu_sampler("f(a, b)", namespace, ctx.budget),
                "np.multiply": cpu_sampler("np.multiply(a, b)", namespace, ctx.budget)}
    stats = interleave(samplers, ctx.rounds(25, 5))
    notes = [f"CPU time of the calling thread (time.thread_time), timeit loops of ~{ctx.budget * 1e3:g} ms per sample",
             "opkit: `mul.compute(a, b)` in timeit's loop (the attribute lookup included), warm; "
             "baseline: `f(a, b)` with f = opkit.function([x, y], mul(x, y)), trust_input=True",
             "compute keeps the compiled function's argument checks (as a validated call does)"]
    return Figure("eager_compute", "op.compute(a, b), 1-element float64, warm, vs trusted f(a, b)", "us",
                  stats, TRUSTED, Target("ratio", 1.5), notes)


def cpu_process_sampler(command, env, cwd, unit: float = 1e-3):
    """Return a sampler of the CPU time (user + system) of running `command` and its waited-for children."""
    def sample():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run_checked(command, env, cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / unit
    return sample


def fresh_process_cpu(ctx: Context) -> Figure:
    """CPU time of a new interpreter doing import + function + first call, cache warm, against import numpy."""
    scripts = _scripts(ctx)
    _warm_up(ctx, scripts)
    env = ctx.subprocess_env()
    samplers = {label: cpu_process_sampler([sys.executable, "-c", source], env, ctx.cwd)
                for label, source in scripts.items()}
    stats = interleave(samplers, ctx.rounds(15, 3))
    notes = ["python -c of the fresh_process script; user + system CPU time of the child and the processes it "
             "waited for (getrusage RUSAGE_CHILDREN), .pyc files written, one warm-up run first",
             "delta: median of per-round differences against `python -c 'import numpy'`"]
    figure = Figure("fresh_process_cpu", "fresh process, warm cache: import + function + first call (CPU time)",
                    "ms", stats, IMPORT_NUMPY, Target("over", 30), notes)
    figure.delta = paired_delta(stats[OPKIT], stats[IMPORT_NUMPY])
    return figure


FIGURES = {"eager_compute": eager_compute, "fresh_process_cpu": fresh_process_cpu}

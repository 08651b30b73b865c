"""Fresh-process figures: wall time with a warm cache, and peak RSS, each against numpy alone."""

from __future__ import annotations

import sys

from context import Context
from report import OPKIT, Figure, Target, paired_delta
from timing import Stats, interleave, process_sampler, run_checked

IMPORT_NUMPY = "import numpy"

OPKIT_SCRIPT = ("import opkit, opkit.tensor as ot, numpy as np\n"
                "x, y = ot.dvector('x'), ot.dvector('y')\n"
                "f = opkit.function([x, y], x * y)\n"
                "f(np.ones(3), np.ones(3))\n")

PYTENSOR_SCRIPT = ("import pytensor, pytensor.tensor as pt, numpy as np\n"
                   "from pytensor.compile.mode import Mode\n"
                   "x, y = pt.dvector('x'), pt.dvector('y')\n"
                   "f = pytensor.function([x, y], x * y, mode={mode})\n"
                   "f(np.ones(3), np.ones(3))\n")

PEAK_RSS = "\nimport resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"

# Linux carries ru_maxrss across fork and exec: a child started by this (large) process would
# report our peak, not its own. A small launcher process in between resets it to the launcher's.
LAUNCHER = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def _scripts(ctx: Context) -> dict[str, str]:
    """Return {label: python source} for opkit, numpy alone and (if present) PyTensor's two modes."""
    scripts = {OPKIT: OPKIT_SCRIPT, IMPORT_NUMPY: "import numpy\n"}
    if ctx.pytensor is not None:
        default_label, c_label = ctx.pytensor_modes()
        scripts[default_label] = PYTENSOR_SCRIPT.format(mode="None")
        scripts[c_label] = PYTENSOR_SCRIPT.format(mode="Mode(linker='c')")
    return scripts


def _warm_up(ctx: Context, scripts: dict[str, str]) -> None:
    """Run each script once: fills the compile caches and writes the .pyc files users would have."""
    for source in scripts.values():
        run_checked([sys.executable, "-c", source], ctx.subprocess_env(), ctx.cwd)


def fresh_process(ctx: Context) -> Figure:
    """Wall time of a new interpreter doing import + function + first call, cache warm."""
    scripts = _scripts(ctx)
    _warm_up(ctx, scripts)
    env = ctx.subprocess_env()
    samplers = {label: process_sampler([sys.executable, "-c", source], env, ctx.cwd)
                for label, source in scripts.items()}
    stats = interleave(samplers, ctx.rounds(9, 3))
    notes = ["python -c of the script, wall time; PYTHONDONTWRITEBYTECODE unset, one warm-up run first",
             "delta: median of per-round differences against `python -c 'import numpy'`"]
    figure = Figure("fresh_process", "fresh process, warm cache: import + function + first call", "ms",
                    stats, IMPORT_NUMPY, Target("over", 75), notes)
    figure.delta = paired_delta(stats[OPKIT], stats[IMPORT_NUMPY])
    return figure


def peak_rss(ctx: Context) -> Figure:
    """Peak resident set size (ru_maxrss) after import + one compiled op + one call."""
    scripts = {label: source + PEAK_RSS for label, source in _scripts(ctx).items()}
    _warm_up(ctx, scripts)
    env = ctx.subprocess_env()
    command = lambda source: [sys.executable, "-c", LAUNCHER, sys.executable, "-c", source]
    # ru_maxrss is in KiB on Linux.
    samplers = {label: (lambda s=source: int(run_checked(command(s), env, ctx.cwd).split()[-1]) / 1024)
                for label, source in scripts.items()}
    stats: dict[str, Stats] = interleave(samplers, ctx.rounds(5, 2))
    notes = ["resource.getrusage(RUSAGE_SELF).ru_maxrss at the end of the script, in a fresh process "
             "started through a small launcher process (ru_maxrss survives fork and exec)"]
    return Figure("peak_rss", "peak RSS after import + one compiled op + one call", "MiB", stats,
                  IMPORT_NUMPY, Target("max", 40), notes)

"""Compare the fresh-process cost of opkit checkouts, paired round by round, against `import numpy`.

    python benchmarks/fresh_process_paired.py /path/to/old-checkout /path/to/new-checkout --rounds 25

A single run of the `fresh_process_cpu` figure varies by 10-15 ms from run to run on a
shared machine, more than a change to what a process imports usually costs. This script
runs the figure's script (import opkit + function from a warm cache + first call) from
each checkout (its root on PYTHONPATH, each with a compile cache of its own, warmed
first) and `python -c "import numpy"`, interleaved, one of each per round, and prints,
for CPU time (user + system, getrusage) and wall time, the median over the rounds of
each checkout's difference from `import numpy` in the same round. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from figure_eager import cpu_process_sampler  # noqa: E402
from figures_process import IMPORT_NUMPY, OPKIT_SCRIPT  # noqa: E402
from report import paired_delta  # noqa: E402
from timing import Stats, interleave, run_checked  # noqa: E402


def _checkout(path: str) -> pathlib.Path:
    root = pathlib.Path(path).resolve()
    if not (root / "opkit" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{path} is not an opkit checkout: it has no opkit/__init__.py")
    return root


def _sampler(command, env, cwd, walls):
    """Return a sampler of a run's CPU time (ms) that also appends the run's wall time (ms) to `walls`."""
    cpu = cpu_process_sampler(command, env, cwd)

    def sample():
        start = time.perf_counter()
        spent = cpu()
        walls.append((time.perf_counter() - start) * 1e3)
        return spent
    return sample


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=_checkout, metavar="CHECKOUT",
                        help="roots of opkit source trees (e.g. git worktrees of two commits)")
    parser.add_argument("--rounds", type=int, default=25, help="rounds of one run per contender (default 25)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")

    with tempfile.TemporaryDirectory(prefix="opkit-paired-") as work:
        base = dict(os.environ)
        base.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files written, as users have them
        contenders = {IMPORT_NUMPY: (base, IMPORT_NUMPY)}
        for index, root in enumerate(args.checkouts):
            env = dict(base, PYTHONPATH=str(root), OPKIT_COMPILEDIR=os.path.join(work, f"cache-{index}"))
            contenders[f"{index}: {root}"] = (env, OPKIT_SCRIPT)
        for env, source in contenders.values():  # warm the caches and write the .pyc files
            run_checked([sys.executable, "-c", source], env, work)
            run_checked([sys.executable, "-c", source], env, work)
        walls = {label: [] for label in contenders}
        samplers = {label: _sampler([sys.executable, "-c", source], env, work, walls[label])
                    for label, (env, source) in contenders.items()}
        cpu = interleave(samplers, args.rounds)
        wall = {label: Stats(samples) for label, samples in walls.items()}

    print(f"{args.rounds} round(s); medians in ms; 'over numpy' is the median of per-round differences")
    print("| checkout | CPU | CPU over numpy | wall | wall over numpy |")
    print("|---|---|---|---|---|")
    for label in contenders:
        cells = []
        for table in (cpu, wall):
            mine, numpy_stats = table[label], table[IMPORT_NUMPY]
            over = "-" if label == IMPORT_NUMPY else f"{paired_delta(mine, numpy_stats):+.1f}"
            cells += [f"{mine.median:.1f}", over]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from figure_eager import cpu_process_sampler  # noqa: E402
from figures_process import IMPORT_NUMPY, OPKIT_SCRIPT  # noqa: E402
from report import paired_delta  # noqa: E402
from timing import interleave, process_sampler, run_checked  # noqa: E402


def _checkout(path: str) -> pathlib.Path:
    root = pathlib.Path(path).resolve()
    if not (root / "opkit" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{path} is not an opkit checkout: it has no opkit/__init__.py")
    return root


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
        cpu, wall = {}, {}
        for label, (env, source) in contenders.items():
            cpu[label] = cpu_process_sampler([sys.executable, "-c", source], env, work)
            wall[label] = process_sampler([sys.executable, "-c", source], env, work)
        samplers = {f"{kind} {label}": sampler for kind, table in (("cpu", cpu), ("wall", wall))
                    for label, sampler in table.items()}
        stats = interleave(samplers, args.rounds)

    print(f"{args.rounds} round(s); medians in ms; 'over numpy' is the median of per-round differences")
    print("| checkout | CPU | CPU over numpy | wall | wall over numpy |")
    print("|---|---|---|---|---|")
    for label in contenders:
        cells = []
        for kind in ("cpu", "wall"):
            mine, numpy_stats = stats[f"{kind} {label}"], stats[f"{kind} {IMPORT_NUMPY}"]
            over = "-" if label == IMPORT_NUMPY else f"{paired_delta(mine, numpy_stats):+.1f}"
            cells += [f"{mine.median:.1f}", over]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

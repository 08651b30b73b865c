"""Run opkit's benchmark figures side by side with numpy (and PyTensor when installed).

    python benchmarks/run.py [--quick] [--json PATH] [--only NAME...] [--no-pytensor] [--keep] [--threads N]

Each figure interleaves its contenders round by round, prints median/min/max
and the ratio to its baseline, and the run ends with a summary table and a JSON
report (default: benchmarks/results/<timestamp>.json). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Figure modules import no opkit at module level: opkit reads OPKIT_COMPILEDIR on first import,
# which main() points at the run's own directory first.
import figure_array  # noqa: E402
import figure_big_graph  # noqa: E402
import figure_bridge_jax  # noqa: E402
import figure_bridge_pymc  # noqa: E402
import figure_bridge_torch  # noqa: E402
import figure_compile  # noqa: E402
import figure_eager  # noqa: E402
import figure_incremental  # noqa: E402
import figures_call  # noqa: E402
import figure_reduce  # noqa: E402
import figure_reductions  # noqa: E402
import figures_process  # noqa: E402
import figures_speed  # noqa: E402
import figure_tensor_language  # noqa: E402
from context import Context, import_pytensor, machine_description, prepare_environment, usable_cores  # noqa: E402
from report import Figure, detail_table, summary_table  # noqa: E402


# In the order of the figures table of issue 7.
FIGURES = {"call_trusted": figures_call.call_trusted, "call_validated": figures_call.call_validated,
           "call_chain10": figures_call.call_chain10, "call_chain100": figures_call.call_chain100,
           "big_array": figure_array.big_array, "cold_compile": figure_compile.cold_compile,
           "fresh_process": figures_process.fresh_process, "recompile": figures_call.recompile,
           "peak_rss": figures_process.peak_rss,
           # Speed at scale (issue 14)
           "elemwise_1e4": figures_speed.elemwise_1e4, "elemwise_1e7": figures_speed.elemwise_1e7,
           "elemwise_1e8": figures_speed.elemwise_1e8, "sum_xy": figure_reduce.sum_xy,
           "sum_xy_numpy": figure_reduce.sum_xy_numpy,
           **figure_big_graph.FIGURES, **figure_incremental.FIGURES,
           **figure_eager.FIGURES, **figure_reductions.FIGURES,
           **figure_bridge_torch.FIGURES, **figure_bridge_jax.FIGURES, **figure_bridge_pymc.FIGURES,
           **figure_tensor_language.FIGURES}


class UsageError(Exception):
    """Wrong command-line arguments (exit status 2)."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_args(argv):
    parser = ArgumentParser(prog="benchmarks/run.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repeats, smaller arrays: a smoke run")
    parser.add_argument("--json", type=pathlib.Path, help="where to write the JSON report")
    parser.add_argument("--only", nargs="+", metavar="NAME", help=f"figures to run: {', '.join(FIGURES)}")
    parser.add_argument("--no-pytensor", action="store_true", help="skip PyTensor even if it is installed")
    parser.add_argument("--keep", action="store_true", help="keep the run's temporary cache directory")
    parser.add_argument("--threads", type=int, default=usable_cores(),
                        help="threads for opkit, numba parallel and the OpenMP loop (default: every usable core)")
    args = parser.parse_args(argv)
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    unknown = sorted(set(args.only or ()) - set(FIGURES))
    if unknown:
        raise UsageError(f"unknown figure(s) {', '.join(unknown)}; choose from {', '.join(FIGURES)}")
    return args


def run_figures(ctx: Context, names) -> tuple[list[Figure], dict[str, str], dict[str, str]]:
    """Run each named figure, printing its details; return the figures, the errors and the skips by name."""
    figures, errors, skipped = [], {}, {}
    for name in names:
        print(f"\n## {name}", flush=True)
        start = time.perf_counter()
        try:
            figure = FIGURES[name](ctx)
        except Exception as exc:  # one broken figure must not cost the others
            if getattr(exc, "skip_figure", False):  # its framework is not installed here (needs.py): not an error
                skipped[name] = str(exc)
                print(f"skipped: {exc}", flush=True)
                continue
            errors[name] = traceback.format_exc()
            print(f"FAILED:\n{errors[name]}", flush=True)
            continue
        figures.append(figure)
        print(f"{figure.title} ({time.perf_counter() - start:.1f} s)")
        print(detail_table(figure))
        for note in figure.notes:
            print(f"  note: {note}")
    return figures, errors, skipped


def write_report(path: pathlib.Path, machine: dict, figures, errors, skipped) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    machine["loadavg_end"] = os.getloadavg()
    report = {"machine": machine, "figures": [f.as_dict() for f in figures], "errors": errors, "skipped": skipped}
    path.write_text(json.dumps(report, indent=2) + "\n")


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
    except UsageError as error:
        print(f"benchmarks/run.py: error: {error}", file=sys.stderr)
        return 2
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="opkit-bench-"))
    if args.keep:
        print(f"keeping {workdir}")
    else:
        # Registered before PyTensor is imported, so it runs after PyTensor's own exit handlers
        # (which still read its cache).
        atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    ctx = Context(quick=args.quick, workdir=workdir, threads=args.threads)
    prepare_environment(ctx)  # before opkit or PyTensor read their configuration
    ctx.pytensor = import_pytensor(not args.no_pytensor)
    machine = machine_description(ctx)
    print(f"opkit benchmarks ({'quick' if args.quick else 'full'} run); "
          f"load average {' '.join(f'{v:.2f}' for v in machine['loadavg_start'])}; "
          f"{ctx.cores}; {ctx.threads} thread(s); march={machine['march']}; numpy {machine['numpy']}; "
          f"PyTensor {machine['pytensor'] or 'not installed'}; cache {ctx.compiledir}")
    figures, errors, skipped = run_figures(ctx, args.only or list(FIGURES))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = args.json or HERE / "results" / f"{stamp}.json"
    write_report(path, machine, figures, errors, skipped)
    print("\n## summary (medians)")
    print(summary_table(figures))
    if skipped:
        print(f"skipped (not installed here): {', '.join(skipped)}")
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in machine['loadavg_end'])}")
    print(f"JSON report: {path}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

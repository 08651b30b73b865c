"""Where a test run's time goes to the C++ compiler: every compiler run, charged to the test that caused it.

    python benchmarks/compile_census.py [--log PATH] [--top N] [PYTEST_ARGS...]

Runs `python -m pytest PYTEST_ARGS` (default: the README's run, `-n auto`) with a `g++` first on PATH that
runs the real one and records its CPU time, what it did (compile, link, precompiled header, probe) and the
test pytest was running (PYTEST_CURRENT_TEST, which subprocesses inherit). Then it prints the compiler's
share of the run's CPU time and the CPU seconds by directory, file and test function, with compile counts.

The cost of a test run is mostly the C it compiles (issue 45's census: g++ was 77% of the README run's CPU),
so this says where cutting a sweep, or sharing one module across its cases, saves time; test durations
alone cannot tell a compile from Python work. It measures CPU seconds, not wall time: the figures add up
across pytest-xdist's workers and do not depend on how busy the machine is.
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# The wrapper: bash's `times` gives the real compiler's user and system CPU (its children's, in its second line).
WRAPPER = r"""#!/usr/bin/env bash
"@REAL@" "$@"
status=$?
case " $* " in
    *" c++-header "*) kind=pch ;;
    *" -c "*|*" -fsyntax-only "*) kind=compile ;;
    *" -shared "*) kind=link ;;
    *) kind=probe ;;
esac
times > "$OPKIT_CENSUS_LOG.$$"
{ read -r _; read -r user system; } < "$OPKIT_CENSUS_LOG.$$"
rm -f "$OPKIT_CENSUS_LOG.$$"
printf '%s\t%s\t%s\t%s\n' "$kind" "$user" "$system" "${PYTEST_CURRENT_TEST%% (*}" >> "$OPKIT_CENSUS_LOG"
exit $status
"""


def seconds(text: str) -> float:
    """Return bash's `times` figure ('1m2.345s') in seconds."""
    minutes, _, rest = text.partition("m")
    return int(minutes) * 60 + float(rest.rstrip("s"))


def read_log(path: pathlib.Path) -> list[tuple[str, float, str]]:
    """Return (kind, CPU seconds, test id) for each compiler run the log recorded."""
    runs = []
    for line in path.read_text().splitlines():
        kind, user, system, test = line.split("\t")
        runs.append((kind, seconds(user) + seconds(system), test or "(outside a test)"))
    return runs


def report(runs, run_cpu: float, wall: float, top: int) -> str:
    """Return the census as text: totals, then the CPU seconds by directory, file and test function."""
    by_kind = collections.Counter()
    counts = collections.Counter()
    for kind, cpu, _ in runs:
        by_kind[kind] += cpu
        counts[kind] += 1
    compiler = sum(by_kind.values())
    lines = [f"pytest: {wall:.0f} s wall, {run_cpu:.0f} s CPU (itself and its children)",
             f"the compiler: {compiler:.0f} s CPU ({100 * compiler / max(run_cpu, 1e-9):.0f}% of the run's), "
             + ", ".join(f"{kind} {counts[kind]} runs {by_kind[kind]:.0f} s" for kind in sorted(by_kind))]
    for title, name_of in (("directory", lambda test: "/".join(test.split("::")[0].split("/")[:2])),
                           ("file", lambda test: test.split("::")[0]),
                           ("test function", lambda test: test.split("[")[0])):
        cpu, compiles = collections.Counter(), collections.Counter()
        for kind, seconds_, test in runs:
            cpu[name_of(test)] += seconds_
            compiles[name_of(test)] += kind == "compile"
        lines += ["", f"the compiler's CPU seconds by {title} (compiles), the top {top}:"]
        lines += [f"{seconds_:8.1f} s {compiles[name]:5d}  {name}" for name, seconds_ in cpu.most_common(top)]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="python benchmarks/compile_census.py [--log PATH] [--top N] "
                                           "[PYTEST_ARGS...]")
    parser.add_argument("--log", type=pathlib.Path, help="keep the compiler runs' log here (default: a temporary file)")
    parser.add_argument("--top", type=int, default=30, help="rows of each table (default 30)")
    options, pytest_args = parser.parse_known_args(argv)
    real = shutil.which("g++")
    if real is None:
        parser.error("g++ is not on PATH: the census wraps it (Debian: apt-get install g++)")
    if "cxx=" in os.environ.get("OPKIT_FLAGS", ""):
        parser.error("OPKIT_FLAGS names a compiler (cxx=...): the census wraps g++ on PATH; unset it")
    with tempfile.TemporaryDirectory(prefix="opkit-census-") as scratch:
        bin_dir = pathlib.Path(scratch, "bin")
        bin_dir.mkdir()
        wrapper = bin_dir / "g++"
        wrapper.write_text(WRAPPER.replace("@REAL@", real))
        wrapper.chmod(0o755)
        log = options.log or pathlib.Path(scratch, "compiler-runs.tsv")
        log.unlink(missing_ok=True)
        log.touch()
        env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                   OPKIT_CENSUS_LOG=str(log.resolve()))
        started = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", "pytest", *(pytest_args or ["-n", "auto"])], env=env)
        wall = time.perf_counter() - started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(report(read_log(log), children.ru_utime + children.ru_stime, wall, options.top))
    return status


if __name__ == "__main__":
    sys.exit(main())

"""`opkit demo`: the tutorial's VectorTimesVector end to end.

Compile it, check it against numpy, time it against numpy on the same inputs,
then compile it again in a fresh process to show the on-disk cache hit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

import opkit.tensor as ot
from opkit.cli.errors import CommandFailed
from opkit.cli.new import render_scaffold
from opkit.cop.compiledir.layout import SOURCE, demo_dir
from opkit.cop.source.sections import c_string_literal
from opkit.cop.store.cache import default_cache
from opkit.lazy import load
from opkit.link.function import function
from opkit.plugins.registry import UnknownNameError, ops

# The built-in copy: the `opkit new` scaffold's op, which is VectorTimesVector with a `code` section.
_BUILTIN_NAMES = {"directory": "opkit-demo", "dist": "opkit-demo", "package": "opkit_demo_vector_times_vector",
                  "class_name": "VectorTimesVector", "op_name": "vector_times_vector"}


def builtin_vector_times_vector():
    """Return VectorTimesVector from the scaffold, rendered where the cache lives so every run shares it."""
    project = str(demo_dir())  # a fixed directory: the generated C names its source file, so a new one would miss
    render_scaffold(_BUILTIN_NAMES, project)
    source = os.path.join(project, "src")  # the scaffold's src/ layout
    if source not in sys.path:
        sys.path.insert(0, source)
    # lazy: the scaffold's own package, written just now, importable from `source` on
    op_class = load(f"{_BUILTIN_NAMES['package']}.op", "VectorTimesVector")
    return op_class(), f"built-in copy in {project}"


def find_vector_times_vector():
    """Return (op, where it comes from): the installed example package's op, else the built-in copy."""
    try:
        op = ops["vector_times_vector"]
    except UnknownNameError:
        op, where = builtin_vector_times_vector()
        return op, f"{where}\n  (pip install ./examples/vector_times_vector for the example package)"
    info = ops.info("vector_times_vector")
    return op, (f"installed package {info['distribution']} {info['version']}, "
                f"C code in {', '.join(info['c_files'])}")


def _modules_with(func_files) -> set:
    """Return the keys of cached modules whose source includes one of these C files (by its #line path)."""
    found = set()
    for entry in default_cache().upkeep.entries():
        try:
            source = (entry.path / SOURCE).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if any(c_string_literal(str(path)) in source for path in func_files):
            found.add(entry.key)
    return found


def compile_timed(op):
    """Return (function, seconds, built): compile op(x, y) on float64 vectors, and whether its C was built.

    Other modules the call may build (opkit's own call path, once per cache) do not count.
    """
    before = _modules_with(op.func_files)
    x, y = ot.dvector("x"), ot.dvector("y")
    started = time.perf_counter()
    f = function([x, y], op(x, y))
    seconds = time.perf_counter() - started
    return f, seconds, bool(_modules_with(op.func_files) - before)


def best_time(call, repeat: int) -> float:
    """Return the fastest of `repeat` timed calls, in seconds."""
    times = []
    for _ in range(max(repeat, 1)):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def run_child(args):
    op, where = find_vector_times_vector()
    _, seconds, built = compile_timed(op)
    print(json.dumps({"compile_seconds": seconds, "built": built, "source": where}))
    return 0


def _second_process() -> dict:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "opkit", "demo", "--child"],
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise CommandFailed(f"the second process failed (exit status {result.returncode}):\n{result.stderr}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    report["process_seconds"] = time.perf_counter() - started
    return report


def time_fused_expression(a, b, repeat: int):
    """Time `(a * b + a) * 2 - b`: FAST_RUN fuses it into one C loop, numpy makes four passes."""
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], (x * y + x) * 2 - y)
    np.testing.assert_allclose(f(a, b), (a * b + a) * 2 - b, rtol=1e-15)
    ours = best_time(lambda: f(a, b), repeat)
    theirs = best_time(lambda: (a * b + a) * 2 - b, repeat)
    print(f"fused (x * y + x) * 2 - y, one C loop: {ours * 1e3:8.3f} ms; numpy: {theirs * 1e3:8.3f} ms; "
          f"ratio: {compared_with_numpy(ours, theirs)}")


SAME = 0.05  # within 5% either way, two best-of-N times are the same time


def compared_with_numpy(ours: float, theirs: float) -> str:
    """Say what the timing showed on this machine: opkit faster than numpy, slower, or level."""
    ratio = ours / theirs
    verdict = ("faster than numpy here" if ratio < 1 - SAME else "slower than numpy here" if ratio > 1 + SAME
               else "the same time as numpy here (within 5%)")
    return f"{ratio:.2f}x numpy's time: {verdict}"


def run_demo(args):
    if args.child:
        return run_child(args)
    op, where = find_vector_times_vector()
    print(f"VectorTimesVector: {where}")
    f, seconds, built = compile_timed(op)
    print(f"compile (this process):  {seconds:8.3f} s  ({'compiled' if built else 'cache hit'})")
    rng = np.random.default_rng(0)
    a, b = rng.random(args.size), rng.random(args.size)
    out = f(a, b)
    np.testing.assert_allclose(out, a * b, rtol=0, atol=0)
    print(f"matches numpy a * b on {args.size} float64 elements: exactly")
    ours, theirs = best_time(lambda: f(a, b), args.repeat), best_time(lambda: a * b, args.repeat)
    print(f"opkit (C):  {ours * 1e3:8.3f} ms per call (best of {args.repeat})")
    print(f"numpy:      {theirs * 1e3:8.3f} ms per call")
    print(f"ratio:      {compared_with_numpy(ours, theirs)}")
    print("  (the tutorial's C loop steps through each array by its strides, element by element, where numpy's\n"
          "   own loop is specialised for contiguous arrays: which one wins depends on the machine and the size)")
    time_fused_expression(a, b, args.repeat)
    second = _second_process()
    print(f"compile (fresh process): {second['compile_seconds']:8.3f} s  "
          f"({'compiled again: the cache missed' if second['built'] else 'cache hit'}; "
          f"the whole process took {second['process_seconds']:.2f} s)")
    return 1 if second["built"] else 0

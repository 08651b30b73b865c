"""Every reduction on every axis of a (10^4, 10^3) float64 matrix, C and Fortran order, against numpy.

The matrix: sum prod max min mean argmax argmin x axis {None, 0, 1} x order {C, F}
x keepdims {False, True}. Each case times numpy, opkit on one thread and opkit on
every thread of the run (config.threads), interleaved round by round; one compiled
function per case serves both opkit settings (the thread count is read at run time).
Two figures share the measurement: the worst one-thread ratio to numpy (target
<= 1.0x) and the worst all-threads ratio (target < 1.0x); the whole table is printed.

    python benchmarks/figure_reductions.py [--quick] [--threads N] [--only sum max ...]
"""

from __future__ import annotations

import itertools

import numpy as np

from context import Context
from report import OPKIT, Figure, Target, number, table
from timing import Stats, call_sampler, interleave

SHAPE = (10**4, 10**3)
KINDS = ("sum", "prod", "max", "min", "mean", "argmax", "argmin")
AXES = (None, 0, 1)
NUMPY = "numpy"
ONE = "opkit 1 thread"
_MEASURED: dict[int, tuple] = {}


def cases(kinds=KINDS):
    """Yield (kind, axis, order, keepdims) over the whole matrix."""
    yield from itertools.product(kinds, AXES, "CF", (False, True))


def label(case) -> str:
    kind, axis, order, keepdims = case
    return f"{kind} axis={axis} {order}{' keepdims' if keepdims else ''}"


def data(shape, order):
    """Values in 1 +- 5e-4: products of 10^7 of them stay normal (no underflow), sums are well conditioned."""
    values = 1.0 + (np.random.default_rng(0).random(shape) - 0.5) * 1e-3
    return np.asfortranarray(values) if order == "F" else values


def opkit_function(kind, axis, keepdims):
    import opkit
    import opkit.tensor as ot

    x = ot.dmatrix("x")
    return opkit.function([x], getattr(ot, kind)(x, axis=axis, keepdims=keepdims))


def threads(n):
    import opkit

    return opkit.config.change_flags(threads=n)


def measure_case(case, x, ctx: Context, rounds: int, budget: float) -> dict[str, Stats]:
    """Time numpy and opkit (1 thread, ctx.threads threads) on one case, interleaved."""
    kind, axis, _, keepdims = case
    fn = opkit_function(kind, axis, keepdims)
    numpy_fn = getattr(np, kind)
    expected = numpy_fn(x, axis=axis, keepdims=keepdims)
    with threads(1):
        one = fn(x)
    with threads(ctx.threads):
        many = fn(x)
    for got, what in ((one, "1 thread"), (many, f"{ctx.threads} threads")):
        np.testing.assert_allclose(got, expected, rtol=1e-9, err_msg=f"{label(case)}, {what}")
    if one.tobytes() != many.tobytes():
        raise AssertionError(f"{label(case)}: 1 thread and {ctx.threads} threads differ in the last bits")

    def opkit_sampler(n):
        inner = call_sampler(fn, (x,), budget, unit=1e-3)

        def sample():
            with threads(n):
                return inner()
        return sample

    samplers = {NUMPY: call_sampler(lambda a: numpy_fn(a, axis=axis, keepdims=keepdims), (x,), budget, unit=1e-3)}
    with threads(1):
        samplers[ONE] = opkit_sampler(1)
    with threads(ctx.threads):
        samplers[many_label(ctx)] = opkit_sampler(ctx.threads)
    return interleave(samplers, rounds)


def many_label(ctx: Context) -> str:
    return f"opkit {ctx.threads} threads"


def measure(ctx: Context, kinds=KINDS):
    """Measure every case once per run; return {case: stats}."""
    key = (id(ctx), tuple(kinds))
    if key in _MEASURED:
        return _MEASURED[key]
    shape = (SHAPE[0] // 10, SHAPE[1]) if ctx.quick else SHAPE
    arrays = {order: data(shape, order) for order in "CF"}
    rounds, budget = ctx.rounds(5, 2), (0.02 if ctx.quick else 0.05)
    results = {case: measure_case(case, arrays[case[2]], ctx, rounds, budget) for case in cases(kinds)}
    _MEASURED[key] = results
    return results


def matrix_table(results, ctx: Context) -> str:
    """Return the table: one row per case, median ms and ratio to numpy for each opkit setting."""
    many = many_label(ctx)
    rows = []
    for case, stats in results.items():
        base = stats[NUMPY].median
        rows.append([label(case), number(base), number(stats[ONE].median), f"{stats[ONE].median / base:.2f}x",
                     number(stats[many].median), f"{stats[many].median / base:.2f}x"])
    return table(["case", "numpy ms", f"{ONE} ms", "ratio", f"{many} ms", "ratio"], rows)


def _worst(results, name) -> tuple:
    return max(results.items(), key=lambda item: item[1][name].median / item[1][NUMPY].median)


def _figure(ctx: Context, name: str, title: str, contender: str, target: Target) -> Figure:
    results = measure(ctx)
    case, stats = _worst(results, contender)
    shape = "x".join(str(s) for s in (data_shape(ctx)))
    notes = [f"worst of {len(results)} cases on a ({shape}) float64 matrix: {label(case)}",
             *matrix_table(results, ctx).splitlines()]
    return Figure(name, f"{title}, worst case {label(case)}", "ms",
                  {OPKIT: stats[contender], NUMPY: stats[NUMPY]}, NUMPY, target, notes)


def data_shape(ctx: Context):
    return (SHAPE[0] // 10, SHAPE[1]) if ctx.quick else SHAPE


def reductions_one_thread(ctx: Context) -> Figure:
    """The worst ratio, over the matrix, of opkit on one thread to numpy (target <= 1.0x)."""
    return _figure(ctx, "reductions_1t", "reductions, one thread", ONE, Target("ratio", 1.0))


def reductions_threads(ctx: Context) -> Figure:
    """The worst ratio, over the matrix, of opkit on the run's threads to numpy (target < 1.0x)."""
    return _figure(ctx, "reductions_threads", f"reductions, {ctx.threads} threads", many_label(ctx),
                   Target("ratio", 0.99))


FIGURES = {"reductions_1t": reductions_one_thread, "reductions_threads": reductions_threads}


def main(argv=None):
    import argparse
    import os
    import pathlib
    import tempfile

    from context import prepare_environment, usable_cores

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="(10^3, 10^3) matrix, 2 rounds")
    parser.add_argument("--threads", type=int, default=usable_cores(), help="opkit's threads (default: every core)")
    parser.add_argument("--only", nargs="+", choices=KINDS, default=KINDS, help="reductions to measure")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opkit-bench-reductions-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work), threads=args.threads)
        keep = os.environ.get("OPKIT_COMPILEDIR")
        prepare_environment(ctx)
        if keep:  # reuse the caller's compile cache (the cases compile once, not on every run)
            os.environ["OPKIT_COMPILEDIR"] = keep
        results = measure(ctx, args.only)
        shape = "x".join(str(s) for s in data_shape(ctx))
        print(f"({shape}) float64; {args.threads} threads; median of {ctx.rounds(5, 2)} interleaved rounds")
        print(matrix_table(results, ctx))
        for name in (ONE, many_label(ctx)):
            case, stats = _worst(results, name)
            print(f"worst {name}: {label(case)} {stats[name].median / stats[NUMPY].median:.2f}x numpy")


if __name__ == "__main__":
    main()

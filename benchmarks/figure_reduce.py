"""`sum(x*y)` on 10^7 float64: opkit's fused reduction against numba (one thread) and numpy.

opkit compiles `ot.sum(x * y)` into one loop (a FusedReduce node: no temporary);
numpy computes `np.sum(x * y)` (a temporary, then a pairwise sum); numba runs
`for i: s += x[i] * y[i]` without fastmath (one accumulator, as written). Two
figures share one measurement: `sum_xy` (target <= 1.1x numba single-thread) and
`sum_xy_numpy` (target <= 0.5x numpy).

    python benchmarks/figure_reduce.py [--quick]     # prints both figures
"""

from __future__ import annotations

import numpy as np

from context import Context
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

SIZE = 10**7
NUMBA = "numba (1 thread)"
NUMPY = "numpy"
_MEASURED: dict[int, tuple] = {}


def expression(T):
    x, y = T.dvector("x"), T.dvector("y")
    return [x, y], T.sum(x * y)


def numpy_sum_xy(x, y):
    return np.sum(x * y)


def numba_sum_xy():
    """Return numba's compiled one-thread loop, or None if numba is not importable."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=False)
    def sum_xy(x, y):
        total = 0.0
        for i in range(x.shape[0]):
            total += x[i] * y[i]
        return total

    return sum_xy


def opkit_sum_xy():
    """Return opkit's compiled `sum(x*y)`."""
    import opkit
    import opkit.tensor as ot

    inputs, output = expression(ot)
    return opkit.function(inputs, output)


def one_thread():
    """Return a context keeping opkit's loops on one thread (where the build has a `threads` setting)."""
    import opkit

    return opkit.config.change_flags(**({"threads": 1} if "threads" in dir(opkit.config) else {}))


def measure(ctx: Context):
    """Time every contender on the same arrays, interleaved; return (stats, size, notes), once per run."""
    if id(ctx) in _MEASURED:
        return _MEASURED[id(ctx)]
    rng = np.random.default_rng(0)
    size = SIZE // 10 if ctx.quick else SIZE
    x, y = rng.standard_normal(size), rng.standard_normal(size)
    contenders = {OPKIT: opkit_sum_xy(), NUMPY: numpy_sum_xy, "np.dot": np.dot,
                  **ctx.pytensor_functions(expression, trust_input=False)}
    numba_fn = numba_sum_xy()
    if numba_fn is not None:
        contenders[NUMBA] = numba_fn
    expected = numpy_sum_xy(x, y)
    for label, fn in contenders.items():
        np.testing.assert_allclose(fn(x, y), expected, rtol=1e-9, err_msg=label)
    budget = 0.03 if ctx.quick else 0.1
    with one_thread():  # the setting is read when a loop runs
        samplers = {label: call_sampler(fn, (x, y), budget, unit=1e-3) for label, fn in contenders.items()}
        stats = interleave(samplers, ctx.rounds(9, 2))
    notes = [f"{size} float64 elements per input; opkit: one fused loop, one thread; a sample is "
             f"~{budget * 1e3:g} ms of back-to-back calls",
             "numba: @njit loop `total += x[i] * y[i]` (no fastmath)" if numba_fn else "numba: not installed"]
    _MEASURED[id(ctx)] = (stats, size, notes)
    return _MEASURED[id(ctx)]


def sum_xy(ctx: Context) -> Figure:
    """opkit's fused `sum(x*y)` against numba's single-thread loop (target <= 1.1x)."""
    stats, size, notes = measure(ctx)
    return Figure("sum_xy", f"sum(x*y) on {size:.0e} float64, one thread", "ms", stats, NUMBA,
                  Target("ratio", 1.1), notes)


def sum_xy_numpy(ctx: Context) -> Figure:
    """opkit's fused `sum(x*y)` against numpy's `np.sum(x*y)` (target <= 0.5x)."""
    stats, size, notes = measure(ctx)
    return Figure("sum_xy_numpy", f"sum(x*y) on {size:.0e} float64 vs numpy", "ms", stats, NUMPY,
                  Target("ratio", 0.5), notes)


def main(argv=None):
    import argparse
    import pathlib
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^6 elements, 2 rounds")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opkit-bench-reduce-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work))
        prepare_environment(ctx)
        for figure in (sum_xy(ctx), sum_xy_numpy(ctx)):
            print(detail_table(figure))


if __name__ == "__main__":
    main()

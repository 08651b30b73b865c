"""The tensor language's new functions against numpy (and PyTensor's C backend where installed).

- `language_chain_1e6`, `language_chain_1e7`: a chain of the new elementwise functions,
  `arctan(x) * erf(y) + log2(1 + x*x) - hypot(x, y) + sinh(y) / cosh(x)`, on float64 vectors;
  opkit fuses it into one loop (no temporaries), numpy makes one temporary per operation
  (scipy.special.erf for erf). Target <= 1.0x numpy.
- `language_sort`, `language_cumsum`, `language_matmul`: sort along the last axis of a
  (1000, 1000) float64 matrix, cumsum along axis 0 of the same, and a (256, 256) @ (256, 256)
  matmul, against numpy's own call. Target <= 1.0x numpy.

Each figure interleaves its contenders round by round (benchmarks/timing.py).

    python benchmarks/figure_tensor_language.py [--quick]
"""

from __future__ import annotations

import numpy as np

from context import Context
from needs import require
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

NUMPY = "numpy"


def chain(T, x, y):
    hypot = getattr(T, "hypot", None) or (lambda a, b: T.sqrt(a * a + b * b))  # PyTensor 3 has no hypot
    return T.arctan(x) * T.erf(y) + T.log2(1 + x * x) - hypot(x, y) + T.sinh(y) / T.cosh(x)


def numpy_chain(x, y):
    from scipy.special import erf

    return np.arctan(x) * erf(y) + np.log2(1 + x * x) - np.hypot(x, y) + np.sinh(y) / np.cosh(x)


def _pytensor_chain(T):
    x, y = T.dvector("x"), T.dvector("y")
    return [x, y], chain(T, x, y)


def _opkit(build):
    import opkit
    import opkit.tensor as ot

    inputs, output = build(ot)
    return opkit.function(inputs, output)


def _measure(ctx: Context, name: str, title: str, contenders: dict, args: tuple, notes: list[str]) -> Figure:
    expected = contenders[NUMPY](*args)
    for label, fn in contenders.items():
        np.testing.assert_allclose(fn(*args), expected, rtol=1e-12, atol=1e-12, err_msg=label)
    budget = 0.03 if ctx.quick else 0.1
    samplers = {label: call_sampler(fn, args, budget, unit=1e-3) for label, fn in contenders.items()}
    stats = interleave(samplers, ctx.rounds(9, 2))
    return Figure(name, title, "ms", stats, NUMPY, Target("ratio", 1.0), notes)


def _chain_figure(ctx: Context, size: int, name: str) -> Figure:
    require("scipy")  # numpy's side of erf
    size = size // 10 if ctx.quick else size
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(size), rng.standard_normal(size)
    contenders = {OPKIT: _opkit(_pytensor_chain), NUMPY: numpy_chain,
                  **ctx.pytensor_functions(_pytensor_chain, trust_input=False)}
    return _measure(ctx, name, f"a chain of 9 new elementwise functions on {size:.0e} float64", contenders, (x, y),
                    ["opkit: one fused loop; numpy: a temporary per operation, scipy.special.erf"])


def language_chain_1e6(ctx: Context) -> Figure:
    return _chain_figure(ctx, 10**6, "language_chain_1e6")


def language_chain_1e7(ctx: Context) -> Figure:
    return _chain_figure(ctx, 10**7, "language_chain_1e7")


def language_sort(ctx: Context) -> Figure:
    n = 300 if ctx.quick else 1000
    x = np.random.default_rng(1).standard_normal((n, n))
    contenders = {OPKIT: _opkit(lambda T: ([m := T.dmatrix("m")], T.sort(m, axis=-1))),
                  NUMPY: lambda a: np.sort(a, axis=-1)}
    return _measure(ctx, "language_sort", f"sort along the last axis of ({n}, {n}) float64", contenders, (x,),
                    ["opkit: the Sort op's C (sort.c), NaN last as numpy"])


def language_cumsum(ctx: Context) -> Figure:
    n = 300 if ctx.quick else 1000
    x = np.random.default_rng(2).standard_normal((n, n))
    contenders = {OPKIT: _opkit(lambda T: ([m := T.dmatrix("m")], T.cumsum(m, axis=0))),
                  NUMPY: lambda a: np.cumsum(a, axis=0)}
    return _measure(ctx, "language_cumsum", f"cumsum along axis 0 of ({n}, {n}) float64", contenders, (x,),
                    ["opkit: the CumOp's C"])


def language_matmul(ctx: Context) -> Figure:
    n = 128 if ctx.quick else 256
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))

    def build(T):
        x, y = T.dmatrix("x"), T.dmatrix("y")
        return [x, y], T.matmul(x, y)

    contenders = {OPKIT: _opkit(build), NUMPY: np.matmul}
    return _measure(ctx, "language_matmul", f"matmul of two ({n}, {n}) float64", contenders, (a, b),
                    ["opkit: matmul of matrices is Dot (BLAS where opkit found one)"])


FIGURES = {"language_chain_1e6": language_chain_1e6, "language_chain_1e7": language_chain_1e7,
           "language_sort": language_sort, "language_cumsum": language_cumsum, "language_matmul": language_matmul}


def main(argv=None):
    import argparse
    import pathlib
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes, 2 rounds")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opkit-bench-language-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work))
        prepare_environment(ctx)
        for make in FIGURES.values():
            figure = make(ctx)
            print(f"\n{figure.name}: {figure.title}\n{detail_table(figure)}")


if __name__ == "__main__":
    main()

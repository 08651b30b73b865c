"""Incremental builds (issue 26): a graph changed by one node, and a PyMC-style model, cold and warm.

- `incremental_200`: a chain of 200 nodes whose C differs node by node (a tag in
  each node's code), compiled cold (tags no cache holds), then again with one
  node's tag changed: only the chunk object holding that node and the glue are
  compiled (opkit.cop.incremental). Target: the rebuild at most 0.25x the cold compile.
- `model_cold` / `model_warm`: the log-density of a hierarchical normal model and
  its gradient (opkit.tensor and PyTensor, the same code): cold against
  PyTensor's C linker and its default (numba) mode, target at most 0.5x PyTensor C.

Cold, for opkit, is an empty compile cache (only the precompiled header, built
once per machine like PyTensor's own C helpers, is copied in); for PyTensor, a
model whose prior scales (constants PyTensor bakes into its C and numba code)
no cache holds. Warm is the same model's function built again in the process.

    python benchmarks/figure_incremental.py [--quick]
    python benchmarks/figure_incremental.py --nodes    # the model graph's nodes by op, opkit and PyTensor
"""

from __future__ import annotations

import itertools
import os
import pathlib
import shutil
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from context import Context  # noqa: E402
from report import OPKIT, Figure, Target  # noqa: E402
from timing import interleave, once_sampler  # noqa: E402

PYTENSOR_C, PYTENSOR_DEFAULT = "pytensor (c)", "pytensor (numba)"
COLD = "opkit cold"
N_CHAIN = 200
GROUPS, OBS, BLOCKS = 8, 12, 3
_salts = itertools.count(1)


def _tagged_class():
    import opkit

    class Tagged(opkit.Op):
        """z = x * y; the tag is a comment in its C code: each tag is another node content."""

        __props__ = ("tag",)

        def __init__(self, tag):
            self.tag = tag

        def make_node(self, x, y):
            return opkit.Apply(self, [x, y], [x.type()])

        def c_support_code(self, **kwargs):
            return ("static void tagged_mul(const double* x, npy_intp xs, const double* y, npy_intp ys,\n"
                    "                       double* z, npy_intp n)\n"
                    "{ for (npy_intp i = 0; i < n; i++) z[i] = x[i * xs] * y[i * ys]; }\n")

        def c_code(self, node, name, inputs, outputs, sub):
            x, y, z, fail = inputs[0], inputs[1], outputs[0], sub["fail"]
            return (f"// tag: {self.tag}\n"
                    f"if (NULL == {z} || PyArray_DIMS({z})[0] != PyArray_DIMS({x})[0]) {{\n"
                    f"    Py_XDECREF({z});\n"
                    f"    {z} = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS({x}), NPY_FLOAT64, 0);\n"
                    f"    if (!{z}) {fail}\n}}\n"
                    f"tagged_mul((const double*)PyArray_DATA({x}), PyArray_STRIDES({x})[0] / 8,\n"
                    f"           (const double*)PyArray_DATA({y}), PyArray_STRIDES({y})[0] / 8,\n"
                    f"           (double*)PyArray_DATA({z}), PyArray_DIMS({x})[0]);")

        def c_code_cache_version(self):
            return (1,)

    return Tagged


def _chain_function(tags):
    import opkit
    import opkit.tensor as ot

    tagged = _tagged_class()
    x, y = ot.dvector("x"), ot.dvector("y")
    z = x
    for tag in tags:
        z = tagged(tag)(z, y)
    f = opkit.function([x, y], z)
    a, b = np.linspace(0.5, 1.5, 5), np.full(5, 1.001)
    np.testing.assert_allclose(f(a, b), a * b ** len(tags), rtol=1e-12)
    return f


def incremental_200(ctx: Context) -> Figure:
    """A 200-node graph rebuilt after one node's C changed, against its cold compile."""
    n = 50 if ctx.quick else N_CHAIN
    state = {}

    def cold():
        salt = f"{os.getpid()}-{next(_salts)}"
        state["tags"] = [f"{salt}-{k}" for k in range(n)]
        _chain_function(state["tags"])

    def rebuild():
        tags = list(state["tags"])
        tags[n // 2] = f"{tags[n // 2]}-changed-{next(_salts)}"
        _chain_function(tags)

    # Paired: each round compiles a new chain cold, then the same chain with one node changed.
    samplers = {COLD: once_sampler(cold, unit=1.0), OPKIT: once_sampler(rebuild, unit=1.0)}
    rounds = ctx.rounds(3, 1)
    samples = {COLD: [], OPKIT: []}
    for _ in range(rounds):
        for name in (COLD, OPKIT):
            samples[name].append(samplers[name]())
    from timing import Stats

    stats = {name: Stats(values) for name, values in samples.items()}
    notes = [f"{n} nodes of one op, each with its own C (a tag in its code); cold: tags no cache holds; "
             f"rebuild: the same chain with node {n // 2}'s tag changed; {rounds} round(s); {ctx.cores}",
             "incremental builds (config.incremental): chunks of about 8 nodes per cached object, then a link"]
    return Figure("incremental_200", f"{n}-node graph, one node changed, rebuilt", "s", stats, COLD,
                  Target("ratio", 0.25), notes)


def model(T, grad, scale=1.0):
    """Return (inputs, [logp, *grads]) of a hierarchical normal model with BLOCKS groups of parameters.

    Each block: mu ~ N(0, 5 s), tau ~ HalfNormal(2.5 s) (log-transformed), eta ~ N(0, 1) per group
    (non-centred theta = mu + tau eta), a slope per block; sigma ~ HalfCauchy(s) (log-transformed),
    beta_k ~ N(0, 2 s) on 3 covariates; y ~ N(sum of the blocks' theta[g] + slope x + sum_k beta_k X_k, sigma).
    Each beta_k is a scalar (PyTensor's C IncSubtensor, the gradient of beta[k], fails with this numpy).
    No dot: opkit's Dot has no C code (it would run in Python, between C regions), and PyTensor's C
    linker cannot compile Gemv without a BLAS library (none here).
    `scale` (s) salts the prior scales, constants PyTensor bakes into its code.
    """
    y, x = T.dmatrix("y"), T.dmatrix("x")
    covariates = [T.dmatrix(f"X{k}") for k in range(3)]
    log_sigma, beta = T.dscalar("log_sigma"), [T.dscalar(f"beta{k}") for k in range(3)]
    params = [log_sigma, *beta]
    mean = beta[0] * covariates[0] + beta[1] * covariates[1] + beta[2] * covariates[2]
    half_log_2pi = 0.5 * np.log(2 * np.pi)

    def normal(value, mu, sd):
        return T.sum(-0.5 * T.sqr((value - mu) / sd) - T.log(sd) - half_log_2pi)

    blocks = []
    for b in range(BLOCKS):
        mu, log_tau, eta = T.dscalar(f"mu{b}"), T.dscalar(f"log_tau{b}"), T.dvector(f"eta{b}")
        slope, log_slope_sd = T.dscalar(f"slope{b}"), T.dscalar(f"log_slope_sd{b}")
        params += [mu, log_tau, eta, slope, log_slope_sd]
        tau, slope_sd = T.exp(log_tau), T.exp(log_slope_sd)
        blocks.append(normal(mu, 0.0, 5.0 * scale) + normal(eta, 0.0, 1.0) + normal(slope, 0.0, slope_sd)
                      + normal(tau, 0.0, 2.5 * scale) + np.log(2.0) + log_tau
                      + normal(slope_sd, 0.0, 1.0 * scale) + np.log(2.0) + log_slope_sd)
        theta = mu + tau * eta
        mean = mean + T.reshape(theta, (GROUPS, 1)) + slope * x * (b + 1)
    sigma = T.exp(log_sigma)
    blocks.append(T.log(2.0 / np.pi / scale) - T.log1p(T.sqr(sigma / scale)) + log_sigma)
    blocks.append(sum(normal(b, 0.0, 2.0 * scale) for b in beta) + normal(y, mean, sigma))
    logp = sum(blocks)
    return [y, x, *covariates, *params], [logp, *grad(logp, params)]


def model_values(seed=3):
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal((GROUPS, OBS)) for _ in range(5)] + [np.float64(-0.3)]
    values += [np.float64(v) for v in rng.standard_normal(3)]
    for _ in range(BLOCKS):
        values += [np.float64(rng.standard_normal()), np.float64(-0.5), rng.standard_normal(GROUPS),
                   np.float64(0.2), np.float64(-0.7)]
    return values


def _opkit_model(scale):
    import opkit
    import opkit.tensor as ot

    inputs, outputs = model(ot, ot.grad, scale)
    return opkit.function(inputs, outputs)


def _pytensor_model(ctx, scale, mode):
    pt = ctx.pytensor
    inputs, outputs = model(pt.tensor, pt.grad, scale)
    return pt.function(inputs, outputs, mode=mode)


def model_nodes() -> tuple[int, int, int]:
    """Return the model function's (apply nodes after opkit's rewrites, C regions, nodes of its biggest region)."""
    from opkit.cop.generate.region import Region
    from opkit.link.partition import partition

    fgraph = _opkit_model(1.0).maker.fgraph
    regions = [step for step in partition(fgraph, None) if isinstance(step, Region)]  # None: the CPU target
    return len(fgraph.apply_nodes), len(regions), max(len(r.nodes) for r in regions)


def nodes_by_op(pytensor=None) -> dict:
    """Return {contender: Counter of op class names} of the model graph after rewrites, with no C compiled.

    opkit: FunctionGraph plus FAST_RUN's rewrite pipeline (what opkit.function's FAST_RUN compiles);
    PyTensor (if given): its default rewrites (fast_run) with the Python linker.
    """
    import collections

    import opkit.tensor as ot
    from opkit.core import rewrites
    from opkit.core.fgraph import FunctionGraph

    inputs, outputs = model(ot, ot.grad)
    fgraph = FunctionGraph(inputs, outputs)
    rewrites.rewrite(fgraph, rewrites.PIPELINES["fast_run"])
    counts = {OPKIT: collections.Counter(type(node.op).__name__ for node in fgraph.toposort())}
    if pytensor is not None:
        from pytensor.compile.mode import Mode

        inputs, outputs = model(pytensor.tensor, pytensor.grad)
        fn = pytensor.function(inputs, outputs, mode=Mode(linker="py", optimizer="fast_run"))
        counts["pytensor (fast_run)"] = collections.Counter(
            type(node.op).__name__ for node in fn.maker.fgraph.toposort())
    return counts


def print_nodes_by_op(pytensor=None):
    """Print nodes_by_op: each contender's total, then one line per op, most first."""
    for label, counts in nodes_by_op(pytensor).items():
        print(f"{label}: {sum(counts.values())} nodes after rewrites")
        for name, n in counts.most_common():
            print(f"  {n:4d} {name}")


def _fresh_opkit_cache():
    """Point opkit's cache at an empty directory holding only this run's precompiled headers."""
    from opkit.config import config

    base = pathlib.Path(config.compiledir)
    new = pathlib.Path(tempfile.mkdtemp(prefix="cold-", dir=base.parent))
    os.chmod(new, 0o700)
    if (base / "pch").is_dir():
        shutil.copytree(base / "pch", new / "pch", symlinks=False)
    return new


def _contenders(ctx: Context, warm: bool):
    from opkit.config import config

    values = model_values()
    # opkit's first build is the reference: every sample of every contender must give its numbers
    # (cold PyTensor samples have prior scales salted by about 1e-9, hence the tolerance).
    reference = [np.asarray(v) for v in _opkit_model(1.0)(*values)]
    tolerance = 1e-9 if warm else 1e-6

    def checked(build):
        def run():
            fn = build()
            for a, b in zip([np.asarray(v) for v in fn(*values)], reference):
                np.testing.assert_allclose(a, b, rtol=tolerance, atol=tolerance)
            return fn
        return run

    def opkit_cold():
        old = config.compiledir
        new = _fresh_opkit_cache()
        config.compiledir = str(new)
        try:
            checked(lambda: _opkit_model(1.0))()
        finally:
            config.compiledir = old
            shutil.rmtree(new, ignore_errors=True)

    builders = {OPKIT: checked(lambda: _opkit_model(1.0)) if warm else opkit_cold}
    if ctx.pytensor is not None:
        from pytensor.compile.mode import Mode, get_default_mode

        for label, mode in ((PYTENSOR_C, Mode(linker="c")), (PYTENSOR_DEFAULT, get_default_mode())):
            if warm:
                _pytensor_model(ctx, 1.0, mode)  # compiled once: samples build it again
                builders[label] = checked(lambda m=mode: _pytensor_model(ctx, 1.0, m))
            else:
                builders[label] = checked(lambda m=mode: _pytensor_model(ctx, 1.0 + next(_salts) * 1e-9, m))
    return builders


def _model_figure(ctx: Context, warm: bool) -> Figure:
    builders = _contenders(ctx, warm)
    samplers = {label: once_sampler(build, unit=1.0 if not warm else 1e-3) for label, build in builders.items()}
    rounds = ctx.rounds(5 if warm else 3, 1)
    stats = interleave(samplers, rounds)
    nodes, regions, biggest = model_nodes()
    notes = [f"hierarchical normal model, {BLOCKS} blocks, {5 * BLOCKS + 4} parameters, logp and its gradient: "
             f"{nodes} nodes after opkit's rewrites, in {regions} C region(s) (the biggest {biggest} nodes)",
             f"{rounds} round(s); {ctx.cores}"]
    if warm:
        notes.append("warm: the same model's function built again in this process (graph, rewrites, cache lookup)")
        return Figure("model_warm", "PyMC-style model logp+grad, warm build", "ms", stats,
                      PYTENSOR_C if PYTENSOR_C in stats else OPKIT, Target("ratio", 1.0), notes)
    notes.append("cold: opkit from an empty cache (precompiled header kept); PyTensor: prior scales no cache holds")
    return Figure("model_cold", "PyMC-style model logp+grad, cold compile", "s", stats,
                  PYTENSOR_C if PYTENSOR_C in stats else OPKIT, Target("ratio", 0.5), notes)


def model_cold(ctx: Context) -> Figure:
    """The PyMC-style model compiled cold: opkit against PyTensor's C linker and its default mode."""
    return _model_figure(ctx, warm=False)


def model_warm(ctx: Context) -> Figure:
    """The PyMC-style model's function built again (warm): opkit against PyTensor's C linker and default mode."""
    return _model_figure(ctx, warm=True)


FIGURES = {"incremental_200": incremental_200, "model_cold": model_cold, "model_warm": model_warm}


def main(argv=None):
    import argparse

    from context import import_pytensor, prepare_environment
    from report import detail_table, summary_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=list(FIGURES))
    parser.add_argument("--no-pytensor", action="store_true")
    parser.add_argument("--nodes", action="store_true",
                        help="print the model graph's nodes by op after rewrites (opkit, PyTensor) and stop")
    args = parser.parse_args(argv)
    if args.nodes:
        print_nodes_by_op(import_pytensor(not args.no_pytensor))
        return
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="opkit-figure-incremental-"))
    ctx = Context(quick=args.quick, workdir=workdir)
    prepare_environment(ctx)
    ctx.pytensor = import_pytensor(not args.no_pytensor)
    figures = []
    try:
        for name in args.only or FIGURES:
            figure = FIGURES[name](ctx)
            figures.append(figure)
            print(detail_table(figure))
            for note in figure.notes:
                print(f"  {note}")
            print()
        print(summary_table(figures))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

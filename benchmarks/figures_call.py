"""Per-call overhead on 1-element vectors, and the in-process recompile of an identical graph."""

from __future__ import annotations

import gc

import numpy as np

from context import Context
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave, once_sampler

NP_MULTIPLY = "np.multiply"


def one_op(T):
    """Return ([x, y], x * y) built with tensor module `T` (opkit.tensor or pytensor.tensor)."""
    x, y = T.dvector("x"), T.dvector("y")
    return [x, y], x * y


def chain(length: int):
    """Return a graph builder for `length` ops alternating mul/add/sub with a second input."""
    def build(T):
        x, y = T.dvector("x"), T.dvector("y")
        e = x
        for i in range(length):
            e = (e * y, e + y, e - y)[i % 3]
        return [x, y], e
    return build


def chain_reference(length: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    e = x
    for i in range(length):
        e = (e * y, e + y, e - y)[i % 3]
    return e


def opkit_function(build, trust_input: bool):
    import opkit
    import opkit.tensor as ot

    inputs, output = build(ot)
    fn = opkit.function(inputs, output)
    fn.trust_input = trust_input
    return fn


def _call_figure(ctx: Context, name: str, title: str, build, trust_input: bool, limit: float,
                 reference) -> Figure:
    """Time f(a, b) for opkit (and PyTensor) against np.multiply(a, b) on 1-element float64 inputs."""
    a, b = np.array([1.5]), np.array([0.75])
    functions = {OPKIT: opkit_function(build, trust_input),
                 **ctx.pytensor_functions(build, trust_input)}
    for label, fn in functions.items():
        np.testing.assert_allclose(fn(a, b), reference(a, b), err_msg=label)
    samplers = {NP_MULTIPLY: call_sampler(np.multiply, (a, b), ctx.budget)}
    samplers.update({label: call_sampler(fn, (a, b), ctx.budget) for label, fn in functions.items()})
    stats = interleave(samplers, ctx.rounds(25, 5))
    notes = [f"trust_input={trust_input}; each sample is a timeit loop of ~{ctx.budget * 1e3:g} ms "
             "(loop overhead included for every contender alike)"]
    return Figure(name, title, "us", stats, NP_MULTIPLY, Target("ratio", limit), notes)


def call_trusted(ctx: Context) -> Figure:
    return _call_figure(ctx, "call_trusted", "call, 1 op (x*y), 1-element float64, trust_input",
                        one_op, True, 1.15, np.multiply)


def call_validated(ctx: Context) -> Figure:
    return _call_figure(ctx, "call_validated", "call, 1 op (x*y), 1-element float64, inputs validated",
                        one_op, False, 2.0, np.multiply)


def call_chain10(ctx: Context) -> Figure:
    return _call_figure(ctx, "call_chain10", "call, chain of 10 ops, 1-element, trust_input",
                        chain(10), True, 1.5, lambda a, b: chain_reference(10, a, b))


def call_chain100(ctx: Context) -> Figure:
    return _call_figure(ctx, "call_chain100", "call, chain of 100 ops, 1-element, trust_input",
                        chain(100), True, 3.0, lambda a, b: chain_reference(100, a, b))


def recompile(ctx: Context) -> Figure:
    """Time `function(inputs, out)` again on a graph already compiled in this process.

    The harness's own heap (PyTensor, numba, earlier figures) is frozen out of the
    garbage collector first, so collections cost what a small user process would pay.
    """
    import opkit
    import opkit.tensor as ot

    inputs, output = one_op(ot)
    opkit.function(inputs, output)
    samplers = {OPKIT: once_sampler(lambda: opkit.function(inputs, output))}
    for label, mode in ctx.pytensor_modes().items():
        pt_inputs, pt_output = one_op(ctx.pytensor.tensor)
        ctx.pytensor.function(pt_inputs, pt_output, mode=mode)
        samplers[label] = once_sampler(lambda i=pt_inputs, o=pt_output, m=mode: ctx.pytensor.function(i, o, mode=m))
    gc.collect()
    gc.freeze()
    try:
        stats = interleave(samplers, ctx.rounds(200, 20))
    finally:
        gc.unfreeze()
    baseline = "pytensor (c)" if "pytensor (c)" in stats else ""
    notes = ["graph x*y on dvectors, compiled once before timing; one call per sample; "
             "objects alive before timing frozen out of the gc (gc.freeze)"]
    return Figure("recompile", "in-process recompile of an identical graph", "ms", stats, baseline,
                  Target("max", 0.3), notes)

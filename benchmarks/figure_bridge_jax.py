"""Per-call cost of an opkit op bridged into JAX (opkit.bridge.jax), on 1 element and on 10^6.

    python benchmarks/figure_bridge_jax.py [--quick]

Contenders, each a warm call that waits for its result (``block_until_ready``):
- opkit: ``jax.jit(as_jax_op(op))(x, y)``, the tutorial's VectorTimesVector (plus infer_shape), through
  opkit's XLA FFI handler;
- jax.ffi no-op (the baseline): a jitted ``jax.ffi.ffi_call`` with the same inputs and output to a handler
  that does nothing (compiled by opkit with the bridge's own handler module): XLA's custom-call machinery;
- jax native: ``jax.jit(lambda x, y: x * y)``;
- opkit call: the op's compiled opkit function called directly (trust_input), no JAX.
Target: the bridged call costs at most 2x the no-op FFI call (issue 25). On 10^6 elements the op's own work
(and the copy of its result into XLA's buffer) dominates, so that figure reports rather than targets.
Needs JAX (the opkit-sdk[jax] extra).
"""

from __future__ import annotations

import pathlib

from context import Context
from needs import require
from example_ops import shaped_vector_times_vector
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

NOOP = "jax.ffi no-op"
NATIVE = "jax native"
OPKIT_CALL = "opkit call"


def _samplers(ctx: Context, size: int):
    require("jax")
    import jax
    import jax.numpy as jnp
    import numpy as np

    import opkit.tensor as ot
    from opkit.bridge.jax import as_jax_op
    from opkit.bridge.jax_ffi import noop_target
    from opkit.link.node_runner import node_runner

    jax.config.update("jax_enable_x64", True)
    op = shaped_vector_times_vector()
    rng = np.random.default_rng(0)
    a, b = rng.random(size), rng.random(size)
    x, y = jnp.asarray(a), jnp.asarray(b)
    bridged = jax.jit(as_jax_op(op))
    noop = jax.jit(jax.ffi.ffi_call(noop_target(), jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="sequential"))
    native = jax.jit(lambda u, v: u * v)
    direct = node_runner(op, [ot.dvector, ot.dvector], trusted=True)[0]  # trusts its inputs, as the handler's call does
    np.testing.assert_array_equal(np.asarray(bridged(x, y)), a * b)
    np.testing.assert_array_equal(direct(a, b)[0], a * b)
    return {OPKIT: call_sampler(lambda u, v: bridged(u, v).block_until_ready(), (x, y), ctx.budget),
            NOOP: call_sampler(lambda u, v: noop(u, v).block_until_ready(), (x, y), ctx.budget),
            NATIVE: call_sampler(lambda u, v: native(u, v).block_until_ready(), (x, y), ctx.budget),
            OPKIT_CALL: call_sampler(direct, (a, b), ctx.budget)}


def _figure(ctx: Context, name: str, size: int, target: float) -> Figure:
    stats = interleave(_samplers(ctx, size), ctx.rounds(30, 7))
    notes = ["jitted calls wait for their result (block_until_ready); float64 (jax_enable_x64)"]
    return Figure(name, f"jax.jit(as_jax_op(VectorTimesVector)), {size:.0e} float64 element(s)", "us", stats,
                  NOOP, Target("ratio", target), notes)


def bridge_jax_1(ctx: Context) -> Figure:
    return _figure(ctx, "bridge_jax_1", 1, 2.0)


def bridge_jax_1e6(ctx: Context) -> Figure:
    # the op multiplies 10^6 doubles and its result is copied into XLA's buffer: reported against the no-op,
    # with a loose bound that catches a per-call copy of the inputs or a Python loop
    return _figure(ctx, "bridge_jax_1e6", 10**6, 50.0)


FIGURES = {"bridge_jax_1": bridge_jax_1, "bridge_jax_1e6": bridge_jax_1e6}


def main(argv=None):
    import argparse
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opkit-bench-jax-") as work:
        ctx = Context(quick=args.quick, workdir=pathlib.Path(work))
        prepare_environment(ctx)
        for figure in (bridge_jax_1(ctx), bridge_jax_1e6(ctx)):
            print(detail_table(figure))
            for name in figure.stats:
                print(f"  {name}: {figure.stats[name].median:.2f} us, {figure.ratio(name):.2f}x the no-op FFI call")


if __name__ == "__main__":
    main()

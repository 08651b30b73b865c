"""Per-call cost of an opkit op bridged into PyTorch (opkit.bridge.torch), on 1 element and on 10^6.

Contenders, interleaved round by round, on float64 CPU tensors (no autograd):
- "opkit" : the tutorial's VectorTimesVector through ``as_torch_op`` (a torch custom op);
- "torch custom_op (empty)": ``torch.library.custom_op`` whose body returns a 0-element
  tensor: torch's own custom-op machinery with nothing in it (the target's baseline);
- "torch a*b": torch's native expression;
- "op.compute": the plain opkit call on the numpy views of the same tensors.
Target: the bridged call costs at most 2x the empty custom op on 1 element (the
overhead figure); on 10^6 the multiply itself dominates and the figure is
reported against torch's a*b, with the same 2x bound.

    python benchmarks/figure_bridge_torch.py [--quick]
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

from context import Context
from needs import require
from report import OPKIT, Figure, Target
from timing import call_sampler, interleave

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "vector_times_vector"
EMPTY = "torch custom_op (empty)"
NATIVE = "torch a*b"
COMPUTE = "op.compute"
_empty_op = []


def _empty_custom_op():
    import torch

    if not _empty_op:
        def empty(x, y):
            return x.new_empty(0)

        # the schema given as as_torch_op gives it (annotations are strings under __future__ annotations)
        _empty_op.append(torch.library.custom_op("opkit_bench::empty", empty, mutates_args=(),
                                                 schema="(Tensor x, Tensor y) -> Tensor"))
    return _empty_op[0]


def _bridged():
    sys.path.insert(0, str(EXAMPLE))
    try:
        from vector_times_vector.op import VectorTimesVector
    finally:
        sys.path.remove(str(EXAMPLE))
    from opkit.bridge.torch import as_torch_op

    op = VectorTimesVector()
    return op, as_torch_op(op)


def _figure(ctx: Context, n: int) -> Figure:
    require("torch")
    import torch

    op, bridged = _bridged()
    generator = torch.Generator().manual_seed(0)
    a, b = (torch.rand(n, dtype=torch.float64, generator=generator) for _ in range(2))
    an, bn = a.numpy(), b.numpy()
    np.testing.assert_array_equal(bridged(a, b).numpy(), an * bn)
    np.testing.assert_array_equal(op.compute(an, bn), an * bn)
    budget = ctx.budget if n == 1 else ctx.budget * 5
    samplers = {OPKIT: call_sampler(bridged, (a, b), budget), EMPTY: call_sampler(_empty_custom_op(), (a, b), budget),
                NATIVE: call_sampler(torch.mul, (a, b), budget), COMPUTE: call_sampler(op.compute, (an, bn), budget)}
    stats = interleave(samplers, ctx.rounds(15, 3))
    baseline = EMPTY if n == 1 else NATIVE
    notes = [f"VectorTimesVector, float64, {n} element(s), CPU, no autograd; torch {torch.__version__}, "
             f"{torch.get_num_threads()} torch thread(s); each sample a timeit loop of ~{budget * 1e3:g} ms",
             f"bridged / empty custom_op: {stats[OPKIT].median / stats[EMPTY].median:.2f}x; "
             f"bridged / a*b: {stats[OPKIT].median / stats[NATIVE].median:.2f}x; "
             f"bridged - op.compute: {stats[OPKIT].median - stats[COMPUTE].median:.2f} us"]
    title = f"torch bridge call, VectorTimesVector, {n} element(s), float64"
    return Figure(f"torch_bridge_{'1' if n == 1 else '1e6'}", title, "us", stats, baseline, Target("ratio", 2.0),
                  notes)


def torch_bridge_1(ctx: Context) -> Figure:
    """The bridged op's per-call cost on 1 element, against an empty torch custom op."""
    return _figure(ctx, 1)


def torch_bridge_1e6(ctx: Context) -> Figure:
    """The bridged op on 10^6 elements, against torch's a*b."""
    return _figure(ctx, 10**6)


# Skipped, saying how to install torch, where it is not installed (needs.require).
FIGURES = {"torch_bridge_1": torch_bridge_1, "torch_bridge_1e6": torch_bridge_1e6}


def main(argv=None) -> int:
    import argparse
    import tempfile

    from context import prepare_environment
    from report import detail_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds, short samples")
    args = parser.parse_args(argv)
    ctx = Context(quick=args.quick, workdir=pathlib.Path(tempfile.mkdtemp(prefix="opkit-bench-torch-")))
    prepare_environment(ctx)
    for figure_function in (torch_bridge_1, torch_bridge_1e6):
        figure = figure_function(ctx)
        print(f"\n## {figure.name}: {figure.title}")
        print(detail_table(figure))
        for note in figure.notes:
            print(f"  note: {note}")
        print(f"  target: ratio to {figure.baseline} <= {figure.target.limit}: {'met' if figure.met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    sys.exit(main())

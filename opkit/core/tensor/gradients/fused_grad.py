"""The gradients of a fused op (FusedElemwise, FusedReduce): those of the graph it stands for."""

from __future__ import annotations

from opkit.core.gradient import Lop, Rop
from opkit.core.gradient_registry import register
from opkit.core.tensor.fused.fusion import DerivedFromExpansion


@register(DerivedFromExpansion, "grad")
def expansion_grad(op, inputs, output_grads):
    return Lop(op.expand(inputs), list(inputs), output_grads[0])


@register(DerivedFromExpansion, "R_op")
def expansion_r_op(op, inputs, eval_points):
    pairs = [(i, e) for i, e in zip(inputs, eval_points) if e is not None]
    if not pairs:
        return [None]
    return [Rop(op.expand(inputs), [i for i, _ in pairs], [e for _, e in pairs])]

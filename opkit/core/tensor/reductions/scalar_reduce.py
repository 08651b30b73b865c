"""A reduction of a 0-d value is an elementwise op (or the value itself): fusion then joins it to its neighbours.

``sum(x)`` and ``mean(x)`` of a 0-d float are ``x + 0``, as numpy's reduce starts from the identity
(``np.sum(-0.0)`` is ``0.0``); ``prod``, ``max`` and ``min`` of it, and any of a 0-d integer whose result
keeps its dtype, are ``x``. A model's log-density sums many scalar terms (``sum(normal(mu, 0, 5))``):
these reductions would each stop a fused loop.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise.basic import add
from opkit.core.tensor.reductions.reduction import Reduce
from opkit.core.tensor.types.variable import constant


def _scalar_reduction(node):
    """Return what replaces a reduction `node` of a 0-d value, or None."""
    if not isinstance(node.op, Reduce) or node.inputs[0].ndim != 0:
        return None
    x, out = node.inputs[0], node.outputs[0]
    if x.type != out.type or np.dtype(x.dtype).kind not in "iufb":
        return None
    if node.op.kind in ("sum", "mean") and np.dtype(x.dtype).kind == "f":
        return add(x, constant(np.zeros((), dtype=x.dtype)))  # -0.0 + 0.0 is 0.0, as numpy's reduce gives
    return x if node.op.kind in ("sum", "mean", "prod", "max", "min") else None


def scalar_reductions(fgraph):
    """Replace reductions of 0-d values by what they compute (see the module)."""
    pairs = []
    for node in fgraph.toposort():
        replacement = _scalar_reduction(node)
        if replacement is not None and replacement.type == node.outputs[0].type:
            pairs.append((node.outputs[0], replacement))
    fgraph.replace_all(pairs, "scalar_reductions")

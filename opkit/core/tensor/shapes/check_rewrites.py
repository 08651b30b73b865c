"""Shape checks a FAST_RUN graph need not repeat, and sums to a shape g already has.

Rewrites that make the graph smaller without dropping a check that can fail:

- ``simplify_checks``: a Depend (shape_checks.py) keeps only the checks its value does not already compute.
  A check is proven when the value's own graph computes it, or computes an equivalent one: two
  BroadcastAxis nodes of the same shapes raise the same error whatever their axis (broadcast.c checks
  every axis). A Depend left with no check is its value. Shape inference adds such repeats: every
  broadcasting node's token holds the checks of its inputs, which its BroadcastAxis already read.
- ``static_sum_to_shape``: SumToShape to a constant shape that g's static type already has is g.
"""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis
from opkit.core.tensor.shapes.sum_to_shape import SumToShape
from opkit.core.tensor.types.shape_checks import Depend, depend


def _key(variable):
    """What a check asserts: BroadcastAxis outputs of the same shapes assert one thing; others are themselves."""
    node = variable.owner
    if node is not None and isinstance(node.op, BroadcastAxis):
        return ("broadcast", node.op.ndims, node.op.what, tuple(map(id, node.inputs)))
    return id(variable)


class _Proofs:
    """The checks each variable's computation makes: the keys of its graph (not through the arrays a shape reads)."""

    def __init__(self):
        from opkit.core.builtin_ops import Shape, Shape_i

        self._computed = {}
        self._shapes = (Shape, Shape_i)

    def computed(self, variable):
        """Return the set of keys of every variable computing `variable` computes (itself included)."""
        found = self._computed.get(id(variable))
        if found is not None:
            return found
        found, stack, seen = set(), [variable], set()
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            cached = self._computed.get(id(v))
            if cached is not None:
                found |= cached
                continue
            found.add(_key(v))
            found.add(id(v))
            node = v.owner
            if node is not None and not isinstance(node.op, self._shapes):
                stack.extend(node.inputs)
        self._computed[id(variable)] = found
        return found

    def proves(self, variable, check):
        """Return True if computing `variable` computes `check`, or one asserting the same."""
        if isinstance(check, Constant):
            return True
        node = check.owner
        if node is not None and isinstance(node.op, Depend):
            return all(self.proves(variable, c) for c in node.inputs)
        return _key(check) in self.computed(variable)


def simplify_checks(fgraph):
    """Drop each check of a Depend that its value, or a check before it, already computes (see the module)."""
    proofs, pairs = _Proofs(), []
    for node in fgraph.toposort():
        if not isinstance(node.op, Depend):
            continue
        value, checks = node.inputs[0], node.inputs[1:]
        kept = []
        for check in checks:
            if not proofs.proves(value, check) and not any(proofs.proves(k, check) for k in kept):
                kept.append(check)
        if len(kept) < len(checks):
            replacement = depend(value, *kept)
            if replacement.type == node.outputs[0].type:
                pairs.append((node.outputs[0], replacement))
    fgraph.replace_all(pairs, "simplify_checks")


def static_sum_to_shape(fgraph):
    """Replace SumToShape(g, shape) by g where shape is a constant g's static type already states."""
    pairs = []
    for node in fgraph.toposort():
        if not isinstance(node.op, SumToShape) or not isinstance(node.inputs[1], Constant):
            continue
        g, shape = node.inputs
        if tuple(int(s) for s in shape.data) == g.type.shape and g.type == node.outputs[0].type:
            pairs.append((node.outputs[0], g))
    fgraph.replace_all(pairs, "static_sum_to_shape")

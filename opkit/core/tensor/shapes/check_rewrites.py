"""Shape checks a FAST_RUN graph need not repeat, and sums to a shape g already has.

Rewrites that make the graph smaller without dropping a check that can fail:

- ``simplify_checks``: a Depend (shape_checks.py) keeps only the checks its value does not already compute.
  A check is proven when the value's own graph computes it, or computes an equivalent one: two
  BroadcastAxis nodes of the same shapes raise the same error whatever their axis (broadcast.c checks
  every axis). A Depend left with no check is its value. Shape inference adds such repeats: every
  broadcasting node's token holds the checks of its inputs, which its BroadcastAxis already read.
- ``static_sum_to_shape``: SumToShape to a constant shape that g's static type already has is g.
- ``redundant_allocs``: an elementwise op reading an Alloc of ones (a gradient's seed, from fill) reads
  the ones themselves where another of its inputs has the Alloc's lengths: it broadcasts them the same.
"""

from __future__ import annotations

import numpy as np

from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.graph import Constant
from opkit.core.tensor.elementwise.elemwise import BroadcastAxis, Elemwise
from opkit.core.tensor.shapes.alloc import Alloc
from opkit.core.tensor.shapes.reshape import Reshape
from opkit.core.tensor.shapes.shape_ops import MakeVector
from opkit.core.tensor.shapes.sum_to_shape import SumToShape
from opkit.core.tensor.types.shape_checks import Depend, depend, known_nonnegative


def _key(variable):
    """What a check asserts: BroadcastAxis outputs of the same shapes assert one thing; others are themselves."""
    node = variable.owner
    if node is not None and isinstance(node.op, BroadcastAxis):
        return ("broadcast", node.op.ndims, node.op.what, tuple(map(id, node.inputs)))
    return id(variable)


# How many variables a search for a check walks back from a value: a check a shape repeats is near it
# (the token of an input, one or two ops up); one not found within this many is kept, as it must be.
SEARCH_LIMIT = 64


class _Proofs:
    """Whether a variable's computation makes a check: a short search of its graph (not through the arrays
    a shape reads), so a graph of n checks costs O(n), never the whole graph behind each."""

    def __init__(self):
        self._near = {}

    def near(self, variable):
        """Return the keys (_key, and ids) of the SEARCH_LIMIT variables nearest `variable` in its graph."""
        found = self._near.get(id(variable))
        if found is None:
            found, queue, seen = set(), [variable], {id(variable)}
            for v in queue:  # breadth first: the nearest first
                found.add(_key(v))
                found.add(id(v))
                node = v.owner
                if node is None or isinstance(node.op, (Shape, Shape_i)):
                    continue
                for i in node.inputs:
                    if id(i) not in seen and len(seen) < SEARCH_LIMIT:
                        seen.add(id(i))
                        queue.append(i)
            self._near[id(variable)] = found
        return found

    def proves(self, variable, check, depth=8):
        """Return True if computing `variable` computes `check`, or one asserting the same.

        A Depend check (a token: a value and its checks) is proven whole, or else part by part (at most
        `depth` Depends deep).
        """
        if isinstance(check, Constant) or check is variable or _key(check) in self.near(variable):
            return True
        node = check.owner
        if depth > 0 and node is not None and isinstance(node.op, Depend):
            return all(self.proves(variable, c, depth - 1) for c in node.inputs)
        return False


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


def _dim_key(dim):
    """What a length is: Shape_i(i) of a variable, a constant, or the variable itself."""
    if isinstance(dim, Constant) and np.ndim(dim.data) == 0:
        return ("constant", int(dim.data))
    if dim.owner is not None and isinstance(dim.owner.op, Shape_i):
        return ("shape_i", dim.owner.op.i, id(dim.owner.inputs[0]))
    return id(dim)


def _lengths(variable, axis, depth=8):
    """Return keys (_dim_key) of lengths known to be `variable`'s along `axis` once it is computed."""
    static = variable.type.shape[axis]
    keys = {("shape_i", axis, id(variable))} | ({("constant", static)} if static is not None else set())
    node = variable.owner
    if node is None or depth == 0:
        return keys
    if isinstance(node.op, Depend):
        keys |= _lengths(node.inputs[0], axis, depth - 1)
    elif isinstance(node.op, Alloc):
        keys.add(_dim_key(node.inputs[1 + axis]))
    elif isinstance(node.op, Reshape) and node.inputs[1].owner is not None \
            and isinstance(node.inputs[1].owner.op, MakeVector):
        dim = node.inputs[1].owner.inputs[axis]
        if known_nonnegative(dim):  # a -1 would be deduced: not the length it says
            keys.add(_dim_key(dim))
    elif isinstance(node.op, Elemwise):
        ndim = variable.ndim
        longer = [(v, axis - ndim + v.ndim) for v in node.inputs
                  if axis - ndim + v.ndim >= 0 and v.type.shape[axis - ndim + v.ndim] != 1]
        if len(longer) == 1:  # every other input has length 1 there: the output has this one's
            keys |= _lengths(*longer[0], depth - 1)
    return keys


def _ones_value(variable):
    """Return the value an Alloc `variable` repeats if it has only lengths 1 (it broadcasts anywhere), else None."""
    node = variable.owner
    if node is None or not isinstance(node.op, Alloc):
        return None
    value = node.inputs[0]
    return value if all(s == 1 for s in value.type.shape) else None


def _without_allocs(node):
    """Return node's inputs with each Alloc of lengths-1 values another input's lengths prove replaced by
    its value (the elementwise op broadcasts it the same), or None if none is."""
    inputs, changed = list(node.inputs), False
    ndim = node.outputs[0].ndim
    for k, variable in enumerate(node.inputs):
        value = _ones_value(variable)
        if value is None or variable.ndim != ndim:
            continue
        others = [v for j, v in enumerate(inputs) if j != k and v.ndim == ndim]
        dims = variable.owner.inputs[1:]
        if others and all(any(_dim_key(d) in _lengths(o, axis) for o in others) for axis, d in enumerate(dims)):
            inputs[k], changed = value, True
    return inputs if changed else None


def _sunk_alloc(node):
    """Return ``Alloc(op(value, *others), *dims)`` for an elementwise `node` of an Alloc of lengths-1 values
    and inputs of lengths 1 only (constants: -0.5 * a gradient's seed), or None."""
    allocs = [v for v in node.inputs if _ones_value(v) is not None and v.ndim == node.outputs[0].ndim]
    if len(allocs) != 1:
        return None
    rest = [v for v in node.inputs if v is not allocs[0]]
    if not all(all(s == 1 for s in v.type.shape) for v in rest):
        return None
    inputs = [_ones_value(v) if v is allocs[0] else v for v in node.inputs]
    return Alloc()(node.op.make_node(*inputs).outputs[0], *allocs[0].owner.inputs[1:])


def redundant_allocs(fgraph):
    """Replace an Alloc of ones (any lengths-1 value) an elementwise op reads by its value where another
    input of that op has the Alloc's lengths (its shape, a Reshape or Alloc to them): a gradient's seed.

    An elementwise op of such an Alloc and constants is first the Alloc of the op's value (PyTensor's
    fill sink), so the seed reaches the op that reads it with an input of its shape.
    """
    while True:  # each pass moves every Alloc one op down (or drops it): as many passes as the longest move
        pairs, replaced = [], set()
        for node in fgraph.toposort():
            if not isinstance(node.op, Elemwise) or any(id(v) in replaced for v in node.inputs):
                continue  # a client of a replaced node: the next pass sees the new one
            inputs = _without_allocs(node)
            new = _sunk_alloc(node) if inputs is None else node.op.make_node(*inputs).outputs[0]
            if new is not None and new.type == node.outputs[0].type:
                pairs.append((node.outputs[0], new))
                replaced.add(id(node.outputs[0]))
        if not pairs:
            return
        fgraph.replace_all(pairs, "redundant_allocs")

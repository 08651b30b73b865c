"""Who shares memory with whom: views (`view_map`), in-place updates (`destroy_map`), and the copies
that keep a compiled function's results the caller's and its inputs untouched.

An op's `view_map` {output: [input]} says the output may share the input's memory;
`destroy_map` {output: [input]} says the op overwrites that input (usually
returning it as the output). Both make an output an alias of an input.
"""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.core.builtin_ops import ViewOp
from opkit.core.builtin_ops import deep_copy_op


def view_roots(variable, stop=()):
    """Return the variables whose memory `variable` may share, following views and in-place updates.

    An op may declare that an output views several inputs ({0: [0, 1]}): each is followed.
    Variables in `stop` (ids) are roots: what they view is not followed.
    """
    roots, pending, seen = [], [variable], set()
    while pending:
        variable = pending.pop()
        if id(variable) in seen:
            continue
        seen.add(id(variable))
        sources = []
        if variable.owner is not None and id(variable) not in stop:
            op = variable.owner.op
            sources = list((getattr(op, "view_map", None) or {}).get(variable.index, ())) \
                + list((getattr(op, "destroy_map", None) or {}).get(variable.index, ()))
            if not sources and isinstance(op, ViewOp):
                sources = [0]
        if sources:
            pending.extend(variable.owner.inputs[i] for i in sources)
        else:
            roots.append(variable)
    return roots


def protect_destroyed_inputs(fgraph):
    """Copy every input an op destroys unless that op is the only reader of the memory.

    The memory must not be the caller's (a graph input), a constant, a graph
    output, or something another node reads (in any order): otherwise a deep
    copy is inserted just for the destroying node.
    """
    order = fgraph.toposort()
    if not any(getattr(node.op, "destroy_map", None) for node in order):
        return
    inputs = set(map(id, fgraph.inputs))
    readers = {}  # id(root) -> number of (node, position) reads of anything sharing that memory
    for node in order:
        for variable in node.inputs:
            for root in view_roots(variable):
                readers[id(root)] = readers.get(id(root), 0) + 1
    output_roots = {id(root) for v in fgraph.outputs for root in view_roots(v)}
    changed = False
    for node in order:
        for destroyed in sorted({i for positions in node.op.destroy_map.values() for i in positions}):
            variable = node.inputs[destroyed]
            if any(id(root) in inputs or isinstance(root, Constant) or id(root) in output_roots
                   or readers.get(id(root), 1) > 1  # a copy made above has one reader
                   for root in view_roots(variable)):
                node.inputs[destroyed] = deep_copy_op(variable)
                changed = True
    if changed:
        fgraph._order = None


def protect_outputs(fgraph):
    """Copy outputs that share memory with an input, a constant, or an earlier output."""
    inputs = set(map(id, fgraph.inputs))
    taken, outputs = set(), []
    for variable in fgraph.outputs:
        roots = view_roots(variable)
        if any(id(root) in inputs or isinstance(root, Constant) or id(root) in taken for root in roots):
            variable = deep_copy_op(variable)
            roots = [variable]
        taken.update(map(id, roots))
        outputs.append(variable)
    if outputs != fgraph.outputs:
        fgraph.outputs = outputs
        fgraph._order = None

"""Who shares memory with whom: views (`view_map`), in-place updates (`destroy_map`), and the copies
that keep a compiled function's results the caller's and its inputs untouched.

An op's `view_map` {output: [input]} says the output may share the input's memory;
`destroy_map` {output: [input]} says the op overwrites that input (usually
returning it as the output). Both make an output an alias of an input.
"""

from __future__ import annotations

from opkit.core.graph import Constant


def view_root(variable):
    """Return the variable whose memory `variable` may share, following views and in-place updates."""
    from opkit.core.builtin_ops import ViewOp

    while variable.owner is not None:
        op = variable.owner.op
        sources = (getattr(op, "view_map", None) or {}).get(variable.index) \
            or (getattr(op, "destroy_map", None) or {}).get(variable.index)
        if not sources and isinstance(op, ViewOp):
            sources = [0]
        if not sources:
            break
        variable = variable.owner.inputs[sources[0]]
    return variable


def protect_destroyed_inputs(fgraph):
    """Copy every input an op destroys unless that op is the only reader of the memory.

    The memory must not be the caller's (a graph input), a constant, a graph
    output, or something another node reads (in any order): otherwise a deep
    copy is inserted just for the destroying node.
    """
    from opkit.core.builtin_ops import deep_copy_op

    order = fgraph.toposort()
    if not any(getattr(node.op, "destroy_map", None) for node in order):
        return
    inputs = set(map(id, fgraph.inputs))
    readers = {}  # id(root) -> number of (node, position) reads of anything sharing that memory
    for node in order:
        for variable in node.inputs:
            root = view_root(variable)
            readers[id(root)] = readers.get(id(root), 0) + 1
    output_roots = {id(view_root(v)) for v in fgraph.outputs}
    changed = False
    for node in order:
        for destroyed in sorted({i for positions in node.op.destroy_map.values() for i in positions}):
            variable = node.inputs[destroyed]
            root = view_root(variable)
            if id(root) in inputs or isinstance(root, Constant) or id(root) in output_roots \
                    or readers.get(id(root), 1) > 1:  # a copy made above has one reader
                node.inputs[destroyed] = deep_copy_op(variable)
                changed = True
    if changed:
        fgraph._order = None


def protect_outputs(fgraph):
    """Copy outputs that share memory with an input, a constant, or an earlier output."""
    from opkit.core.builtin_ops import deep_copy_op

    inputs = set(map(id, fgraph.inputs))
    roots, outputs = set(), []
    for variable in fgraph.outputs:
        root = view_root(variable)
        if id(root) in inputs or isinstance(root, Constant) or id(root) in roots:
            variable = deep_copy_op(variable)
            root = variable
        roots.add(id(root))
        outputs.append(variable)
    if outputs != fgraph.outputs:
        fgraph.outputs = outputs
        fgraph._order = None

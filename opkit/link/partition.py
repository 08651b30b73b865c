"""Cut a graph into C regions (runs of nodes with C code) and the Python nodes between them."""

from __future__ import annotations

from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.region import Region


def partition(fgraph):
    """Split fgraph's nodes into steps: a Region of consecutive C nodes, or one Python node."""
    users = {}
    for node in fgraph.toposort():
        for variable in node.inputs:
            users.setdefault(id(variable), []).append(node)
    graph_outputs = set(map(id, fgraph.outputs))
    steps, run = [], []

    def close_run():
        if run:
            members = set(map(id, run))

            def needed_outside(variable):
                return id(variable) in graph_outputs or any(
                    id(user) not in members for user in users.get(id(variable), ()))

            steps.append(Region.from_nodes(run, needed_outside))
            run.clear()

    for node in fgraph.toposort():
        if op_has_c(node):
            run.append(node)
        else:
            close_run()
            steps.append(node)
    close_run()
    return steps

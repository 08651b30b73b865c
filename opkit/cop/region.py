"""Regions: runs of nodes with C code that become one compiled module each."""

from __future__ import annotations

from dataclasses import dataclass

from opkit.core.graph import Constant
from opkit.cop.cinterface import op_has_c


@dataclass
class Region:
    """Nodes compiled together; what flows in per call, as constants, and out."""

    nodes: list
    inputs: list
    constants: list
    outputs: list

    @classmethod
    def from_nodes(cls, nodes, needed_outside):
        """Build a region from `nodes` (in order); `needed_outside(var)` says what it must return."""
        produced, inputs, constants, seen = set(), [], [], set()
        for node in nodes:
            for variable in node.inputs:
                if id(variable) in produced or id(variable) in seen:
                    continue
                seen.add(id(variable))
                (constants if isinstance(variable, Constant) else inputs).append(variable)
            produced.update(id(v) for v in node.outputs)
        outputs = [v for node in nodes for v in node.outputs if needed_outside(v)]
        return cls(list(nodes), inputs, constants, outputs)


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

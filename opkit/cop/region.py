"""A Region: the nodes one compiled module computes, with what flows in, stays constant and flows out.

How a graph is cut into regions is the link layer's business (opkit.link.partition).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opkit.core.graph import Constant


@dataclass
class Region:
    """Nodes compiled together; what flows in per call, as constants, and out.

    A whole function's region may also read shared variables (`shared`, one
    cell each) and store updates into those cells once its outputs are computed.
    """

    nodes: list
    inputs: list
    constants: list
    outputs: list
    shared: list = field(default_factory=list)   # inputs read from a shared variable's cell k (see make)
    updates: list = field(default_factory=list)  # (k, variable): the variable is stored into cell k
    module: object = field(default=None, compare=False, repr=False)  # once make_region_runner has compiled it

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

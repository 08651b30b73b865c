"""A Region: the nodes one compiled module computes, with what flows in, stays constant and flows out.

How a graph is cut into regions is the link layer's business (opkit.link.partition).
"""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.core.record import Record


class Region(Record):
    """Nodes compiled together; what flows in per call, as constants, and out.

    A whole function's region may also read shared variables (`shared`, one
    cell each) and store updates into those cells once its outputs are computed.
    Equal regions have equal fields, `module` aside (see opkit.core.record).
    """

    _FIELDS = ("nodes", "inputs", "constants", "outputs", "shared", "updates", "preallocated")

    def __init__(self, nodes, inputs, constants, outputs, shared=None, updates=None, preallocated=False,
                 module=None, asked=None, target=None):
        self.nodes = nodes
        self.inputs = inputs
        self.constants = constants
        self.outputs = outputs
        self.shared = [] if shared is None else shared  # inputs read from a shared variable's cell k (see make)
        self.updates = [] if updates is None else updates  # (k, variable): the variable is stored into cell k
        # The runner also takes an array (or None) for each output after the inputs, which the C code
        # finds in its output as a previous call's result (DebugMode's check_preallocated_output).
        self.preallocated = preallocated
        self.module = module  # once make_region_runner has compiled it
        self.asked = asked  # the flags its ops and types gave when it was cut (node_code.Collector's `asked`)
        # The device it is generated for (opkit.cop.generate.target, from the function's backend): what its GPU
        # nodes hold of their kernels and its GPU values' flags; None for a region without GPU values.
        self.target = target

    @classmethod
    def from_nodes(cls, nodes, needed_outside, asked=None, target=None):
        """Build a region from `nodes` (in order) for `target`; `needed_outside(var)` says what it must return."""
        produced, inputs, constants, seen = set(), [], [], set()
        for node in nodes:
            for variable in node.inputs:
                if id(variable) in produced or id(variable) in seen:
                    continue
                seen.add(id(variable))
                (constants if isinstance(variable, Constant) else inputs).append(variable)
            produced.update(id(v) for v in node.outputs)
        outputs = [v for node in nodes for v in node.outputs if needed_outside(v)]
        return cls(list(nodes), inputs, constants, outputs, asked=asked, target=target)

    @classmethod
    def of_node(cls, node, target=None, preallocated=False):
        """Return the one-node region of `node` for `target` (its module's inputs and outputs are the node's)."""
        region = cls.from_nodes([node], lambda variable: True, target=target)
        region.preallocated = preallocated
        return region

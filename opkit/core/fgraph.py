"""FunctionGraph: a private copy of a graph that rewrites may edit in place."""

from __future__ import annotations

from opkit.core.graph import Constant, clone_graph, graph_inputs, io_toposort


class FunctionGraph:
    """The nodes between `inputs` and `outputs`; what is unreachable from outputs is gone.

    Without `inputs`, the inputs are the variables the outputs depend on that are not constants.
    """

    def __init__(self, inputs=None, outputs=None, clone=True):
        outputs = list(outputs or [])
        if inputs is None:
            inputs = [v for v in graph_inputs(outputs) if not isinstance(v, Constant)]
        if clone:
            inputs, outputs, self.memo = clone_graph(inputs, outputs)
        else:
            self.memo = {}
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._order = None

    def toposort(self):
        """Return the Apply nodes in an order that computes them."""
        if self._order is None:
            self._order = io_toposort(self.inputs, self.outputs)
        return list(self._order)

    @property
    def apply_nodes(self):
        return set(self.toposort())

    def variables(self):
        """Return every variable in the graph: inputs, constants and node outputs."""
        seen, found = set(), []
        for variable in self.inputs:
            seen.add(id(variable))
            found.append(variable)
        for node in self.toposort():
            for variable in node.inputs + node.outputs:
                if id(variable) not in seen:
                    seen.add(id(variable))
                    found.append(variable)
        for variable in self.outputs:
            if id(variable) not in seen:
                seen.add(id(variable))
                found.append(variable)
        return found

    def constants(self):
        return [v for v in self.variables() if isinstance(v, Constant)]

    def clients(self):
        """Return {variable: [(node or 'output', index), ...]} for the current graph."""
        result = {}
        for node in self.toposort():
            for position, variable in enumerate(node.inputs):
                result.setdefault(variable, []).append((node, position))
        for position, variable in enumerate(self.outputs):
            result.setdefault(variable, []).append(("output", position))
        return result

    def replace(self, old, new, reason=None):
        """Make every use of `old` use `new` instead."""
        self.replace_all([(old, new)], reason)

    def replace_all(self, pairs, reason=None):
        mapping = {}
        for old, new in pairs:
            if old is new:
                continue
            if old.type != new.type:
                raise TypeError(f"rewrite {reason or ''} replaced {old} of type {old.type} with {new} of type {new.type}")
            mapping[old] = new
        if not mapping:
            return
        for node in self.toposort():
            node.inputs = [mapping.get(v, v) for v in node.inputs]
        self.outputs = [mapping.get(v, v) for v in self.outputs]
        self._order = None

    def __str__(self):
        return "\n".join(str(node) for node in self.toposort())

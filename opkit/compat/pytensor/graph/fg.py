"""pytensor.graph.fg: ``FunctionGraph``, opkit's, and ``FrozenFunctionGraph``, a graph of interned nodes."""

from opkit.compat.pytensor.graph.basic import FrozenApply
from opkit.core.fgraph import FunctionGraph
from opkit.core.graph import Constant, NominalVariable, io_toposort


class FrozenFunctionGraph:
    """An immutable graph of FrozenApply nodes on NominalVariable inputs (PyTensor's).

    Two frozen graphs that compute the same thing (constants compared by value) hold the same
    nodes, so they are equal and hash alike: a key for the graph itself.
    """

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = tuple(inputs), tuple(outputs)

    @classmethod
    def from_io(cls, inputs, outputs):
        """Freeze the graph from `inputs` to `outputs`: input i becomes ``NominalVariable(i, its type)``."""
        memo = {v: NominalVariable(i, v.type) for i, v in enumerate(inputs)}
        for node in io_toposort(list(inputs), list(outputs)):
            frozen = []
            for variable in node.inputs:
                if variable not in memo and not isinstance(variable, Constant):
                    raise ValueError(f"FrozenFunctionGraph.from_io: {variable} is needed by {node} but is neither "
                                     "among the inputs nor a constant")
                frozen.append(memo.get(variable, variable))
            made = FrozenApply(node.op, tuple(frozen), tuple(o.type for o in node.outputs))
            memo.update(zip(node.outputs, made.outputs))
        return cls([memo[v] for v in inputs], [memo.get(v, v) for v in outputs])

    def __eq__(self, other):
        return (isinstance(other, FrozenFunctionGraph) and len(self.outputs) == len(other.outputs)
                and self.inputs == other.inputs and all(a is b for a, b in zip(self.outputs, other.outputs)))

    def __hash__(self):
        return hash((self.inputs, tuple(map(id, self.outputs))))


__all__ = ["FrozenFunctionGraph", "FunctionGraph"]

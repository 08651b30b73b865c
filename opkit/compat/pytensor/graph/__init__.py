"""pytensor.graph: the graph classes, opkit's, at PyTensor's paths (``basic``, ``op``, ``utils``, ``traversal``...)."""

from opkit import Apply, Constant, Op, Variable

__all__ = ["Apply", "Constant", "Op", "Variable"]

# The traversal functions PyTensor re-exports at pytensor.graph (opkit.core.graph's).
from opkit.core.graph import ancestors, graph_inputs  # noqa: E402

__all__ += ["ancestors", "graph_inputs"]

"""The 'py' linker: every node runs through Python (its perform, or its own make_thunk)."""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.link.runner import make_storage, sequential_runner


def python_thunk(node, storage, compute_map):
    """Return the node's Python thunk (its own make_thunk, else perform)."""
    if not node.op.has_perform():
        return None
    return node.op.make_thunk(node, storage, compute_map, [])


class PyLinker:
    """Run every node through Python (perform, or the op's own make_thunk)."""

    name = "py"

    def make_runner(self, fgraph):
        storage = make_storage(fgraph)
        compute_map = {v: [isinstance(v, Constant)] for v in storage}
        thunks = []
        for node in fgraph.toposort():
            thunk = python_thunk(node, storage, compute_map)
            if thunk is None:
                thunk = self.fallback_thunk(node, storage, compute_map)
            thunks.append(thunk)
        return sequential_runner(fgraph, storage, thunks)

    def fallback_thunk(self, node, storage, compute_map):
        """Return a C thunk for a node without perform (it says what to define if there is no C either)."""
        from opkit.link.c_linker import node_c_thunk

        return node_c_thunk(node, storage, compute_map)

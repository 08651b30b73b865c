"""The 'py' linker: every node runs through Python (its perform, or its own make_thunk)."""

from __future__ import annotations

from opkit.link.binders import node_c_runner, python_thunk
from opkit.link.profiling import active
from opkit.link.runner import sequential_runner


class PyLinker:
    """Run every node through Python (perform, or the op's own make_thunk)."""

    name = "py"

    def make_runner(self, fgraph, backend):
        """Return the runner of `fgraph` (`backend` says how a node without perform finds its module:
        compiled, or shipped; without one it says what is missing)."""
        order = fgraph.toposort()
        # Nodes without perform run their own compiled module, compiled once here.
        compiled = {node: self.fallback_runner(node, backend) for node in order if not node.op.has_perform()}
        stats = active()

        def build(storage, compute_map):
            thunks = [python_thunk(node, storage, compute_map) if node not in compiled
                      else compiled[node](storage) for node in order]
            if stats is not None:
                thunks = [thunk if node in compiled else stats.timed(node, thunk) for node, thunk in zip(order, thunks)]
            return thunks

        return sequential_runner(fgraph, build, order)

    def fallback_runner(self, node, backend):
        """Return `bind(storage) -> thunk` running a node without perform through C.

        Without C either, it says what the op must define.
        """
        return node_c_runner(node, backend)

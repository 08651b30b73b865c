"""The 'py' linker: every node runs through Python (its perform, or its own make_thunk)."""

from __future__ import annotations

from opkit.link.profiling import active
from opkit.link.runner import sequential_runner


def python_thunk(node, storage, compute_map):
    """Return the node's Python thunk (its own make_thunk, else perform)."""
    op = node.op
    if not op.has_perform():
        return None
    make_py_thunk = getattr(op, "make_py_thunk", None)
    if make_py_thunk is not None and _default_make_thunk(op):
        return make_py_thunk(node, storage, compute_map, [])
    return op.make_thunk(node, storage, compute_map, [])


def _default_make_thunk(op):
    from opkit.core.op import Op

    return "make_thunk" not in getattr(op, "__dict__", {}) and type(op).make_thunk is Op.make_thunk


class PyLinker:
    """Run every node through Python (perform, or the op's own make_thunk)."""

    name = "py"

    def make_runner(self, fgraph):
        order = fgraph.toposort()
        # Nodes without perform run their own compiled module, compiled once here.
        compiled = {node: self.fallback_runner(node) for node in order if not node.op.has_perform()}
        stats = active()

        def build(storage, compute_map):
            thunks = [python_thunk(node, storage, compute_map) if node not in compiled
                      else compiled[node](storage) for node in order]
            if stats is not None:
                thunks = [thunk if node in compiled else stats.timed(node, thunk) for node, thunk in zip(order, thunks)]
            return thunks

        return sequential_runner(fgraph, build, order)

    def fallback_runner(self, node):
        """Return `bind(storage) -> thunk` running a node without perform through C.

        Without C either, it says what the op must define.
        """
        from opkit.link.c_linker import node_c_runner

        return node_c_runner(node)

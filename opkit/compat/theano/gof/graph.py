"""theano.gof.graph: opkit's graph classes and Theano's functions over graphs.

``clone`` and ``as_string`` are PyTensor's (opkit.compat.pytensor.graph.basic); ``inputs``,
``ancestors``, ``io_toposort``, ``list_of_nodes``, ``general_toposort`` and ``view_roots`` follow
Theano 1.0's (BSD-3).
"""

from opkit.core.graph import Apply, Constant, Variable, ancestors, graph_inputs, io_toposort


def inputs(variable_list, blockers=None):
    """Return the variables `variable_list` depend on that have no owner or are in `blockers` (not searched past)."""
    if blockers is None:
        return graph_inputs(list(variable_list))
    blocked = set(map(id, blockers))
    return [v for v in ancestors(list(variable_list), blockers) if v.owner is None or id(v) in blocked]


def list_of_nodes(inputs, outputs):
    """Return the Apply nodes between `inputs` and `outputs` (those computed from `inputs`), in toposort."""
    return io_toposort(inputs, outputs)


def general_toposort(outputs, deps, debug_print=False, compute_deps_cache=None, deps_cache=None,
                     clients=None):
    """Return the nodes reachable from `outputs` through ``deps(node) -> [nodes]``, each after its deps."""
    order, done, active = [], set(), set()
    for root in outputs:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                active.discard(node)
                if node not in done:
                    done.add(node)
                    order.append(node)
                continue
            if node in done:
                continue
            if node in active:
                raise ValueError("graph contains cycles")
            active.add(node)
            stack.append((node, True))
            stack.extend((dep, False) for dep in reversed(list(deps(node) or [])) if dep not in done)
    return order


def view_roots(r):
    """Return the variables `r` is a view of, following ``view_map`` (Theano's: ``destroy_map`` is not followed)."""
    owner = r.owner
    view_map = getattr(owner.op, "view_map", None) if owner is not None else None
    if not view_map or r.index not in view_map:
        return [r]
    roots = []
    for i in view_map[r.index]:
        roots += view_roots(owner.inputs[i])
    return roots


_LAZY = {"as_string": "opkit.compat.pytensor.graph.basic", "clone": "opkit.compat.pytensor.graph.basic"}
__all__ = ["Apply", "Constant", "Variable", "ancestors", "as_string", "clone", "general_toposort", "inputs",
           "io_toposort", "list_of_nodes", "view_roots"]


def __getattr__(name):
    """Resolve the names other opkit modules own on first use: as_string, clone."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

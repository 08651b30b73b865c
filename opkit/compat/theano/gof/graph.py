"""theano.gof.graph: opkit's graph classes and Theano's functions over graphs.

``as_string`` is PyTensor's (opkit.compat.pytensor.graph.basic); ``clone``, ``inputs``,
``ancestors``, ``stack_search``, ``list_of_nodes``, ``general_toposort`` and ``view_roots`` follow
Theano 1.0's (BSD-3), in its orders (depth first, left input first); ``io_toposort`` is opkit's.
"""

from collections import deque

from opkit.core.graph import Apply, Constant, Variable, io_toposort


def stack_search(start, expand, mode="bfs", build_inv=False):
    """Return the nodes reached from `start` (a deque, emptied) through ``expand(node) -> nodes``, each once,
    breadth or depth first; with `build_inv` also {node: [nodes whose expansion gave it]} (Theano's)."""
    if mode not in ("bfs", "dfs"):
        raise ValueError("mode should be bfs or dfs", mode)
    pop = start.popleft if mode == "bfs" else start.pop
    seen, found, inverse = set(), [], {}
    while start:
        node = pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        expanded = expand(node)
        if expanded:
            expanded = list(expanded)
            if build_inv:
                for other in expanded:
                    inverse.setdefault(other, []).append(node)
            start.extend(expanded)
    return (found, inverse) if build_inv else found


def ancestors(variable_list, blockers=None):
    """Return the variables `variable_list` depend on (themselves included), by a left-recursive depth-first
    search, not past `blockers`."""
    blocked = set(map(id, blockers or ()))

    def expand(r):
        if r.owner is not None and id(r) not in blocked:
            return reversed(r.owner.inputs)
        return None

    return stack_search(deque(variable_list), expand, "dfs")


def inputs(variable_list, blockers=None):
    """Return the variables with no owner `variable_list` depend on, and the `blockers` reached (not searched
    past, as PyTensor's graph_inputs), in left-recursive depth-first order."""
    blocked = set(map(id, blockers or ()))
    return [r for r in ancestors(variable_list, blockers) if r.owner is None or id(r) in blocked]


def clone(i, o, copy_inputs=True, copy_orphans=None):
    """Copy the graph between `i` and `o`; return (new inputs, new outputs). Theano 1.0's: constants are copied
    too, those in `i` when `copy_inputs`, the others when `copy_orphans` (default: `copy_inputs`)."""
    from opkit.compat.pytensor.graph.basic import clone_get_equiv

    copy_orphans = copy_inputs if copy_orphans is None else copy_orphans
    listed = set(map(id, i))
    memo = {v: v.clone() for v in ancestors(o, i)
            if isinstance(v, Constant) and (copy_inputs if id(v) in listed else copy_orphans)}
    equiv = clone_get_equiv(i, o, copy_inputs, copy_orphans, memo=memo)
    return [equiv[v] for v in i], [equiv[v] for v in o]


def list_of_nodes(inputs, outputs):
    """Return the Apply nodes between `inputs` and `outputs` (those computed from `inputs`), in toposort."""
    return io_toposort(inputs, outputs)


def general_toposort(outputs, deps, debug_print=False, compute_deps_cache=None, deps_cache=None,
                     clients=None):
    """Return the nodes reachable from `outputs` through ``deps(node) -> [nodes]``, each after its deps, in
    Theano's order (sources in depth-first discovery order, then each client once its deps are placed)."""
    if compute_deps_cache is None:
        deps_cache = {}

        def compute_deps_cache(node):
            if node not in deps_cache:
                found = deps(node)
                if found and not isinstance(found, list):
                    raise TypeError("Non-deterministic collections here make toposort non-deterministic.")
                deps_cache[node] = list(found) if found else found
            return deps_cache[node]

    reachable, found_clients = stack_search(deque(outputs), compute_deps_cache, "dfs", True)
    if clients is not None:
        clients.update(found_clients)
    sources = deque(r for r in reachable if not deps_cache.get(r, None))
    placed, order = set(), []
    while sources:
        node = sources.popleft()
        if node in placed:
            continue
        order.append(node)
        placed.add(node)
        for client in found_clients.get(node, []):
            deps_cache[client] = [a for a in deps_cache[client] if a is not node]
            if not deps_cache[client]:
                sources.append(client)
    if len(order) != len(reachable):
        raise ValueError("graph contains cycles")
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


_LAZY = {"as_string": "opkit.compat.pytensor.graph.basic",
         "is_same_graph": "opkit.compat.pytensor.graph.rewriting.utils"}
__all__ = ["Apply", "Constant", "Variable", "ancestors", "as_string", "clone", "general_toposort", "inputs",
           "io_toposort", "is_same_graph", "list_of_nodes", "stack_search", "view_roots"]


def __getattr__(name):
    """Resolve the names other opkit modules own on first use: as_string, clone."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""pytensor.graph.traversal: walking graphs (``graph_inputs``, ``ancestors``, ``io_toposort``...), opkit's.

``apply_ancestors``, ``applys_between``, ``vars_between``, ``orphans_between`` and ``toposort`` visit in
PyTensor's order (depth first, last input first), which callers of theirs may rely on.
"""

from opkit.core.graph import Constant, ancestors, graph_inputs, io_toposort
from opkit.core.shared import SharedVariable


def _depth_first(outputs, blockers=(), expand=lambda v: v.owner.inputs):
    """Yield each variable `outputs` depend on once, depth first from the last input, not past `blockers`."""
    blocked, seen, stack = frozenset(blockers), set(), list(outputs)
    while stack:
        variable = stack.pop()
        if variable in seen:
            continue
        seen.add(variable)
        yield variable
        if variable.owner is not None and variable not in blocked:
            stack.extend(expand(variable))


def apply_ancestors(graphs, blockers=None):
    """Yield the Apply nodes that compute `graphs` (inclusive), not past `blockers`."""
    seen = set()
    for variable in _depth_first(graphs, blockers or ()):
        if variable.owner is not None and variable.owner not in seen:
            seen.add(variable.owner)
            yield variable.owner


def applys_between(ins, outs):
    """Yield the Apply nodes between `ins` and `outs` (the owners of `outs` too, not those of `ins`)."""
    return apply_ancestors(outs, blockers=ins)


def vars_between(ins, outs):
    """Yield the variables between `ins` and `outs`, the other outputs of the nodes on the way included."""
    return _depth_first(outs, ins, lambda v: (*v.owner.inputs, *v.owner.outputs))


def orphans_between(ins, outs):
    """Yield the owner-less variables `outs` depend on that are not in `ins`."""
    ins = frozenset(ins)
    return (v for v in vars_between(ins, outs) if v.owner is None and v not in ins)


def toposort(graphs, blockers=None):
    """Return the Apply nodes computing `graphs` from `blockers` (or from the graph inputs), in order."""
    return io_toposort(list(blockers or ()), list(graphs))


__all__ = ["ancestors", "apply_ancestors", "applys_between", "graph_inputs", "io_toposort", "orphans_between",
           "toposort", "vars_between"]

# More of PyTensor's traversal functions: general_toposort (Theano's), explicit_graph_inputs, *_depends_on.
from collections import deque  # noqa: E402


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



def explicit_graph_inputs(graph):
    """Yield the inputs of `graph` (a variable or a sequence of them) that are neither constants nor shared."""
    graph = [graph] if hasattr(graph, "owner") else list(graph)
    return (v for v in graph_inputs(graph) if not isinstance(v, (Constant, SharedVariable)))


def variable_depends_on(variable, depends_on, stop_search_at=None):
    """Return True if `variable` is computed from one of `depends_on` (the search stops at `stop_search_at`)."""
    wanted = set(map(id, depends_on))
    return any(id(v) in wanted for v in ancestors([variable], stop_search_at or ()))


def apply_depends_on(apply, depends_on):
    """Return True if node `apply` is computed from `depends_on` (a node, or a collection of nodes or variables)."""
    targets = {id(d) for d in ([depends_on] if hasattr(depends_on, "op") else depends_on)}
    return any(id(v) in targets or (v.owner is not None and id(v.owner) in targets) for v in ancestors(apply.inputs))


__all__ += ["apply_depends_on", "explicit_graph_inputs", "general_toposort", "stack_search", "variable_depends_on"]


def walk(nodes, expand, bfs=True, return_children=False, hash_fn=id):
    """Yield each node reachable from `nodes` through ``expand(node) -> nodes or None``, once each.

    Breadth first with `bfs`, else depth first; with `return_children`, yield (node, children) pairs.
    """
    import collections

    pending, seen = collections.deque(nodes), set()
    while pending:
        node = pending.popleft() if bfs else pending.pop()
        if hash_fn(node) in seen:
            continue
        seen.add(hash_fn(node))
        children = expand(node)
        yield (node, children) if return_children else node
        if children:
            pending.extend(children)


__all__ += ["walk"]

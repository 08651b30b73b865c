"""theano.gof.graph: opkit's graph classes and Theano's functions over graphs.

``as_string`` is PyTensor's (opkit.compat.pytensor.graph.basic); ``clone``, ``inputs``,
``ancestors``, ``stack_search``, ``list_of_nodes``, ``general_toposort`` and ``view_roots`` follow
Theano 1.0's (BSD-3), in its orders (depth first, left input first); ``io_toposort`` is opkit's.
"""

from collections import deque

from opkit.compat.pytensor.graph.basic import clone_get_equiv
from opkit.compat.pytensor.graph.traversal import general_toposort, stack_search
from opkit.core.graph import Apply, Constant, Variable, io_toposort
from opkit.lazy import lazy_names as _lazy_names


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
    copy_orphans = copy_inputs if copy_orphans is None else copy_orphans
    listed = set(map(id, i))
    memo = {v: v.clone() for v in ancestors(o, i)
            if isinstance(v, Constant) and (copy_inputs if id(v) in listed else copy_orphans)}
    equiv = clone_get_equiv(i, o, copy_inputs, copy_orphans, memo=memo)
    return [equiv[v] for v in i], [equiv[v] for v in o]


def list_of_nodes(inputs, outputs):
    """Return the Apply nodes between `inputs` and `outputs` (those computed from `inputs`), in toposort."""
    return io_toposort(inputs, outputs)


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


# The names other opkit modules own, resolved on first use.
_LAZY = {"as_string": "opkit.compat.pytensor.graph.basic",
         "is_same_graph": "opkit.compat.pytensor.graph.rewriting.utils"}
__all__ = ["Apply", "Constant", "Variable", "ancestors", "as_string", "clone", "general_toposort", "inputs",
           "io_toposort", "is_same_graph", "list_of_nodes", "stack_search", "view_roots"]
__getattr__, __dir__ = _lazy_names(globals(), _LAZY)

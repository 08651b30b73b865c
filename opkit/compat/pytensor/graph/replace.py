"""pytensor.graph.replace: ``clone_replace``, a copy of a graph with some of its variables replaced."""

from opkit.compat.pytensor.graph.basic import clone_get_equiv


def clone_replace(output, replace=None, **rebuild_kwds):
    """Return a copy of `output` (a variable or a list) in which each key of `replace` is its value.

    `replace` is a dict or a list of (old, new) pairs; the graph's other inputs are kept, not copied.
    """
    pairs = list(replace.items() if isinstance(replace, dict) else replace or [])
    memo = dict(pairs)
    outputs = list(output) if isinstance(output, (list, tuple)) else [output]
    clone_get_equiv([old for old, _ in pairs], outputs, copy_inputs=False, copy_orphans=False, memo=memo)
    cloned = [memo[v] for v in outputs]
    return cloned if isinstance(output, (list, tuple)) else cloned[0]


__all__ = ["clone_replace"]

# PyTensor's vectorization hook: registrations are kept, never run (opkit.compat.pytensor._vectorize_node).
from opkit.compat.pytensor import _vectorize_node  # noqa: E402

__all__ += ["_vectorize_node"]

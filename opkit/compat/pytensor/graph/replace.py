"""pytensor.graph.replace: ``clone_replace``, a copy of a graph with some of its variables replaced, and
``_vectorize_node``, PyTensor's vectorization dispatch (its ``register`` keeps the function; opkit never calls it:
opkit has no Blockwise vectorization)."""

import functools

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


@functools.singledispatch
def _vectorize_node(op, node, *batched_inputs):
    """PyTensor's vectorization hook: opkit does not vectorize graphs; registrations are kept, not run."""
    raise NotImplementedError(f"opkit does not vectorize {op}: it has no Blockwise")


__all__ += ["_vectorize_node"]

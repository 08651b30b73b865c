"""Run one opkit op on values through its compiled module, compiled once per (op, input types).

This is the bridge's private stand-in for eager execution: when opkit ops gain
``Op.compute(*values)``, `run_op` is the one place to switch to it. Note that
``compute`` types its inputs from the values (tensors of their dtype and ndim)
and returns one array for a one-output op, while the bridge knows the node's
declared types (scalars, static shapes) and wants a list: keep this path for
nodes whose inputs are not all tensors.
"""

from __future__ import annotations

import threading

from opkit.link.function import function

_functions: dict = {}
_lock = threading.Lock()


def node_function(op, input_types):
    """Return the compiled function of `op` applied to fresh variables of `input_types` (cached).

    The function returns a list of the node's outputs; it trusts its inputs
    (its caller, PyTensor, has already checked them against the same types).
    """
    key = (op, tuple(input_types))
    with _lock:
        found = _functions.get(key)
    if found is not None:
        return found
    variables = [t() for t in input_types]
    node = op.make_node(*variables)
    compiled = function(variables, list(node.outputs), name=f"opkit.bridge {op}")
    compiled.trust_input = True
    with _lock:
        return _functions.setdefault(key, compiled)


def run_op(op, input_types, values):
    """Return the outputs (a list) of `op` on `values`, whose opkit types are `input_types`."""
    return node_function(op, input_types)(*values)

"""Run one opkit op on values through its compiled module, compiled once per (op, input types).

This is the bridge's private stand-in for eager execution: when opkit ops gain
``Op.compute(*values)``, `run_op` is the one place to switch to it. Note that
``compute`` types its inputs from the values (tensors of their dtype and ndim)
and returns one array for a one-output op, while the bridge knows the node's
declared types (scalars, static shapes) and wants a list: keep this path for
nodes whose inputs are not all tensors.
"""

from __future__ import annotations

from opkit.core.memo import BoundedMemo
from opkit.link.code_identity import node_identity
from opkit.link.function import function

FUNCTIONS_LIMIT = 256
# (op, its node's code identity, input types) -> compiled function: an op whose .c file was edited, then
# created again, equals the old one by its props, not by its identity (see opkit.link.code_identity).
_functions = BoundedMemo(FUNCTIONS_LIMIT)
_by_op = BoundedMemo(4 * FUNCTIONS_LIMIT)  # id(op) -> (op, {input types: function}): no identity per call


def node_function(op, input_types):
    """Return the compiled function of `op` applied to fresh variables of `input_types` (cached, bounded).

    The function returns a list of the node's outputs; it trusts its inputs
    (its caller, PyTensor, has already checked them against the same types).
    """
    types = tuple(input_types)
    entry = _by_op.get(id(op))
    if entry is not None and entry[0] is op and types in entry[1]:
        return entry[1][types]
    variables = [t() for t in types]
    node = op.make_node(*variables)
    key = (op, node_identity(node), types)
    compiled = _functions.get(key)
    if compiled is None:
        compiled = function(variables, list(node.outputs), name=f"opkit.bridge {op}")
        compiled.trust_input = True
        _functions[key] = compiled
    if entry is None or entry[0] is not op:
        entry = (op, {})  # holding op keeps its id from being reused while the entry lives
    entry[1][types] = compiled
    _by_op[id(op)] = entry
    return compiled


def run_op(op, input_types, values):
    """Return the outputs (a list) of `op` on `values`, whose opkit types are `input_types`."""
    return node_function(op, input_types)(*values)

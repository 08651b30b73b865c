"""Python numbers passed to a bridged op, and the op's node on the call's types; nothing here imports a framework.

A Python number next to arrays is weak (NEP 50): opkit's ops give it the dtype
their own rules pick (``ot.mul(float32_vector, 2.0)`` holds a float32 constant;
``int8 < 1000`` an int64 one; ``int8 * 1000`` raises OverflowError). A bridge
passes such a number as the array that the op's make_node makes of it, so that
``as_jax_op(mul)(float32_array, 2.0)`` is float32 whatever JAX's x64 flag says,
as ``mul.compute(float32_array, 2.0)``, numpy and JAX's own ``x * 2.0`` are.
"""

from __future__ import annotations

import numpy as np

from opkit.bridge.torch_grad import input_variables
from opkit.core.graph import Constant
from opkit.core.tensor.types.weak import is_weak_number

# a number of each numpy kind, standing for a weak value JAX traces (its dtype depends on its kind alone)
_REPRESENTATIVE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def representative(kind):
    """Return a Python number of numpy dtype kind `kind` (for a weak value whose number is not known)."""
    return _REPRESENTATIVE[kind]


def describe(operands):
    """Return the call's operands as words: 'float32 of rank 2, Python float 2.0'."""
    return ", ".join(f"Python {type(o).__name__} {o!r}" if is_weak_number(o) else f"{o[0]} of rank {o[1]}"
                     for o in operands)


def make_node(op, operands, call):
    """Return ``op.make_node`` of fresh variables for `operands` ((dtype, ndim) pairs, or Python numbers).

    A TypeError, ValueError or OverflowError of make_node comes back as the same kind of error naming
    the op and `call` (how the bridge was called, e.g. 'as_jax_op(VectorTimesVector)'), the original as
    its cause; so does an AttributeError of a make_node that reads `.type` of a Python number it does
    not take (as opkit's own `op(x, 2.0)` would raise it).
    """
    types = [o for o in operands if not is_weak_number(o)]
    fresh = iter(input_variables(op, types))
    variables = [o if is_weak_number(o) else next(fresh) for o in operands]
    try:
        return op.make_node(*variables)
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise refused(op, operands, call, exc) from exc


def refused(op, operands, call, exc):
    """Return the error saying that `op`'s make_node refused `operands` in `call`: `exc`'s kind, its text."""
    message = f"{call} called on ({describe(operands)}): {op}'s make_node refused these inputs: {exc}"
    try:
        return type(exc)(message)
    except Exception:  # an exception class that takes other arguments
        return TypeError(message)


def number_arrays(op, operands, call):
    """Return {position: ndarray} for the Python numbers among `operands`: opkit's constants for them.

    `operands` are (dtype, ndim) pairs for arrays and Python numbers. Each number
    becomes the constant the op's make_node put at its position, of the dtype opkit's
    weak rules give it; where make_node put no constant there, numpy's weak
    promotion with the arrays' dtypes (np.result_type) picks it.
    """
    node = make_node(op, operands, call)
    inputs = list(node.inputs) if len(node.inputs) == len(operands) else None
    arrays = {}
    for position, value in enumerate(operands):
        if not is_weak_number(value):
            continue
        made = inputs[position] if inputs is not None else None
        if isinstance(made, Constant) and isinstance(getattr(made, "data", None), np.ndarray):
            arrays[position] = np.array(made.data)
        else:
            strong = [o[0] for o in operands if not is_weak_number(o)]
            arrays[position] = np.asarray(value, dtype=np.result_type(*strong, value) if strong else None)
    return arrays

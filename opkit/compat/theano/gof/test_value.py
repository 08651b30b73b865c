"""Theano's test values: ``get_test_value``, ``get_debug_values``, ``debug_error_message`` (theano.gof.op).

A test value is a variable's ``tag.test_value``, a constant's data or a shared variable's value.
Theano computed a node's test value when the node was made (``config.compute_test_value``); opkit
makes nodes without running them, so a computed variable's test value is computed when asked for:
its graph runs on the test values of its inputs. ``config`` is opkit.compat.theano's (compat.config).
"""

from __future__ import annotations

import warnings

import numpy as np

from opkit.compat.config import theano_config as config
from opkit.core.graph import Constant, Variable, graph_inputs
from opkit.core.shared import SharedVariable
from opkit.link.function import function
from opkit.link.mode import Mode


def get_test_value(v):
    """Return the test value of `v`: a Python value itself (as an array), or a variable's (AttributeError
    naming the variable when one it depends on has none)."""
    if not isinstance(v, Variable):
        return np.asarray(v)
    found = _own_value(v)
    if found is not None:
        return found[0]
    if v.owner is None:
        raise AttributeError(f"{v} has no test value: set {v}.tag.test_value")
    inputs = [i for i in graph_inputs([v]) if not isinstance(i, (Constant, SharedVariable))]
    values = {i: get_test_value(i) for i in inputs}
    return function(inputs, v, mode=Mode(linker="py"), on_unused_input="ignore")(*[values[i] for i in inputs])


def _own_value(v):
    """Return (value,) when `v` holds a test value itself, else None."""
    if hasattr(v.tag, "test_value"):
        return (v.tag.test_value,)
    if isinstance(v, Constant):
        return (v.data,)
    if isinstance(v, SharedVariable):
        return (v.get_value(borrow=True),)
    return None


def get_debug_values(*args):
    """Return [tuple of the test values of `args`] while config.compute_test_value is on, else [].

    A missing value gives [] under 'ignore', a warning and [] under 'warn', and an AttributeError
    under 'raise' (Theano's behaviour).
    """
    if config.compute_test_value == "off":
        return []
    try:
        return [tuple(get_test_value(arg) for arg in args)]
    except AttributeError:
        if config.compute_test_value == "raise":
            raise
        if config.compute_test_value == "warn":
            warnings.warn("a variable has no test value: get_debug_values returns []", stacklevel=2)
        return []


def debug_error_message(msg):
    """Report a test-value problem: ValueError under 'raise' or 'ignore', a warning under 'warn'."""
    action = config.compute_test_value
    if action == "off":
        raise ValueError(f"debug_error_message called while config.compute_test_value is off: {msg}")
    if action == "warn":
        warnings.warn(msg, stacklevel=2)
    else:
        raise ValueError(msg)


__all__ = ["debug_error_message", "get_debug_values", "get_test_value"]

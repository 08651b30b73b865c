"""What core's hooks and a pickle reach in the link layer: a variable's `eval`, a node's thunk (Op.make_thunk),
an op's `compute` and the function a pickle rebuilds.

opkit.link installs them into opkit.core (and opkit.link.pickling) when it is imported, and imports this module
on their first use: the function, eager and shared-variable modules import numpy, which `opkit.Op` and the
other core names (whose first use imports opkit.link) must not.
"""

from __future__ import annotations

import warnings

from opkit.core.graph import Constant
from opkit.core.shared import SharedVariable
from opkit.cop.generate.cinterface import op_has_c
from opkit.decision import decide
from opkit.link.binders import node_c_thunk
from opkit.link.eager import compute  # noqa: F401  (Op.compute's runner)
from opkit.link.function import function


def evaluate(variable, inputs_to_values, kwargs):
    """Compile (once per set of given keys and `kwargs`) and run a function computing `variable`.

    Free variables become inputs; a shared variable or an intermediate result is
    replaced through ``givens`` by a new input of its type (PyTensor's eval
    likewise cuts the graph at an intermediate key). As PyTensor's, a key the result
    does not depend on raises UnusedInputError unless ``on_unused_input`` says otherwise.
    """
    keys = tuple(sorted(inputs_to_values, key=id))
    for key in keys:
        if isinstance(key, Constant):
            raise TypeError(f"eval: {key} is a constant; its value cannot be set.\nHint: build the graph "
                            "with a variable (opkit.tensor.scalar(), ...) where the value should change.")
    try:
        cache_key = (keys, tuple(sorted(kwargs.items())))
        hash(cache_key)
    except TypeError as exc:  # unhashable keyword values: compile each time
        cache_key = None
        warnings.warn("Keyword arguments could not be used to create a cache key for the underlying variable. "
                      f"A function will be recompiled on every call with such keyword arguments.\n{exc}",
                      stacklevel=4)
    cache = variable.tag.setdefault("_eval_functions", {})
    fn = cache.get(cache_key)
    if fn is None:
        kwargs = dict(kwargs)
        given = kwargs.pop("givens", None) or {}
        givens = dict(given.items() if isinstance(given, dict) else given)
        inputs = []
        for key in keys:
            if key.owner is None and not isinstance(key, SharedVariable):
                inputs.append(key)
            else:
                inputs.append(key.type.make_variable(key.name))
                givens[key] = inputs[-1]
        fn = function(inputs, variable, givens=givens or None, **kwargs)
        if cache_key is not None:
            cache[cache_key] = fn
    return fn(*[inputs_to_values[k] for k in keys])


def c_thunk(node, storage_map, compute_map):
    """Return a thunk running `node` through its own compiled module, or None if it has no C code.

    Op.make_thunk (Theano's protocol, which op authors call by hand) makes a callable outside any
    function: the backend is decided here, its entry, as opkit.function decides it for a function.
    """
    if not op_has_c(node):
        return None
    run = node_c_thunk(node, storage_map, decide())
    computed = [compute_map[v] for v in node.outputs] if compute_map is not None else []

    def thunk():
        run()
        for flag in computed:
            flag[0] = True

    return thunk

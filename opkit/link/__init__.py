"""The link layer: what turns a graph into something callable.

`function` and `FunctionMaker` (function.py), modes (mode.py), the backend
decided once per function (backend.py), the per-node binders (binders.py) that
the linkers share (py_linker.py, c_linker.py, over runner.py; no linker imports
another), the partition of a graph into C regions (partition.py), the one node
runner of op.compute and the bridges (node_runner.py), the C call path
(fastcall.py) and DebugMode (debugmode.py, debugmode_checks.py). It joins opkit.core (the graph)
to opkit.cop (the C toolchain); neither of those imports it.
"""

from opkit.core import graph as _graph
from opkit.core import op as _op


def _evaluate(variable, inputs_to_values, kwargs):
    """Compile (once per set of given keys and `kwargs`) and run a function computing `variable`.

    Free variables become inputs; a shared variable or an intermediate result is
    replaced through ``givens`` by a new input of its type (PyTensor's eval
    likewise cuts the graph at an intermediate key). As PyTensor's, a key the result
    does not depend on raises UnusedInputError unless ``on_unused_input`` says otherwise.
    """
    from opkit.core.graph import Constant
    from opkit.core.shared import SharedVariable
    from opkit.link.function import function

    keys = tuple(sorted(inputs_to_values, key=id))
    for key in keys:
        if isinstance(key, Constant):
            raise TypeError(f"eval: {key} is a constant; its value cannot be set.\nHint: build the graph "
                            "with a variable (opkit.tensor.scalar(), ...) where the value should change.")
    try:
        cache_key = (keys, tuple(sorted(kwargs.items())))
        hash(cache_key)
    except TypeError as exc:  # unhashable keyword values: compile each time
        import warnings

        cache_key = None
        warnings.warn("Keyword arguments could not be used to create a cache key for the underlying variable. "
                      f"A function will be recompiled on every call with such keyword arguments.\n{exc}",
                      stacklevel=3)
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


_graph.set_evaluator(_evaluate)


def _c_thunk(node, storage_map, compute_map):
    """Return a thunk running `node` through its own compiled module, or None if it has no C code.

    Op.make_thunk (Theano's protocol, which op authors call by hand) makes a callable outside any
    function: the backend is decided here, its entry, as opkit.function decides it for a function.
    """
    from opkit.cop.generate.cinterface import op_has_c
    from opkit.link.backend import decide_backend
    from opkit.link.binders import node_c_thunk

    if not op_has_c(node):
        return None
    run = node_c_thunk(node, storage_map, decide_backend())
    computed = [compute_map[v] for v in node.outputs] if compute_map is not None else []

    def thunk():
        run()
        for flag in computed:
            flag[0] = True

    return thunk


_op.set_c_thunk_maker(_c_thunk)


def _compute(op, values):
    """Run `op` on `values` now (Op.compute): compiled once per (op, input types)."""
    from opkit.link.eager import compute

    _op.set_eager_runner(compute)  # later calls skip this frame
    return compute(op, values)


_op.set_eager_runner(_compute)

"""The link layer: what turns a graph into something callable.

`function` and `FunctionMaker` (function.py), modes (mode.py), the linkers
(py_linker.py, c_linker.py, over the shared runner.py), the partition of a
graph into C regions (partition.py), the C call path (fastcall.py) and
DebugMode (debugmode.py, debugmode_checks.py). It joins opkit.core (the graph)
to opkit.cop (the C toolchain); neither of those imports it.
"""

from opkit.core import graph as _graph


def _evaluate(variable, inputs_to_values):
    """Compile (once per set of given inputs) and run a function computing `variable`."""
    from opkit.link.function import function

    keys = tuple(sorted(inputs_to_values, key=id))
    cache = variable.tag.setdefault("_eval_functions", {})
    if keys not in cache:
        cache[keys] = function(list(keys), variable, on_unused_input="ignore")
    return cache[keys](*[inputs_to_values[k] for k in keys])


_graph.set_evaluator(_evaluate)

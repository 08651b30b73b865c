"""The link layer: what turns a graph into something callable.

`function` and `FunctionMaker` (function.py), modes (mode.py), the backend
decided once per function (backend.py), the per-node binders (binders.py) that
the linkers share (py_linker.py, c_linker.py, over runner.py; no linker imports
another), the partition of a graph into C regions (partition.py), the one node
runner of op.compute and the bridges (node_runner.py), the C call path
(fastcall.py) and DebugMode (debugmode.py, debugmode_checks.py). It joins opkit.core (the graph)
to opkit.cop (the C toolchain); neither of those imports it.

Importing it installs what core leaves to it (a variable's eval, Op.make_thunk's C thunk, Op.compute) and
the function a pickle is rebuilt with (opkit.link.function_maker): each leads to opkit.link.entry, imported
on first use, so `import opkit.link` (which `opkit.Op` runs) imports no numpy.
"""

from opkit.core import graph as _graph
from opkit.core import op as _op
from opkit.link import function_maker as _function_maker


def _entry():
    """Return opkit.link.entry (the function, eager and shared-variable modules), imported on first use."""
    from opkit.link import entry  # lazy: numpy and the function stack, which opkit.Op must not import

    return entry


def _evaluate(variable, inputs_to_values, kwargs):
    return _entry().evaluate(variable, inputs_to_values, kwargs)


def _c_thunk(node, storage_map, compute_map):
    return _entry().c_thunk(node, storage_map, compute_map)


def _compute(op, values):
    """Run `op` on `values` now (Op.compute): compiled once per (op, input types)."""
    compute = _entry().compute
    _op.set_eager_runner(compute)  # later calls skip this frame
    return compute(op, values)


def _function(*args, **kwargs):
    return _entry().function(*args, **kwargs)


_graph.set_evaluator(_evaluate)
_op.set_c_thunk_maker(_c_thunk)
_op.set_eager_runner(_compute)
_function_maker.install(_function)

"""What every linker shares: storage cells per variable, and running thunks in order."""

from __future__ import annotations

from opkit.core.graph import Constant
from opkit.errors import add_note


def make_storage(fgraph):
    """Return {variable: [value]} cells for every variable, constants pre-filled."""
    storage = {}
    for variable in fgraph.variables():
        storage[variable] = [variable.data if isinstance(variable, Constant) else None]
    return storage


def describe_node(node, values=None):
    """Return a few lines naming a node and its inputs, for error messages."""
    lines = [f"Apply node that failed: {node}", f"Op: {node.op} ({type(node.op).__module__}.{type(node.op).__qualname__})"]
    if values is not None:
        parts = []
        for variable, value in zip(node.inputs, values):
            shape = getattr(value, "shape", None)
            dtype = getattr(value, "dtype", type(value).__name__)
            parts.append(f"{variable}: shape={shape}, dtype={dtype}" if shape is not None else f"{variable}: {dtype}")
        lines.append("Inputs: " + "; ".join(parts))
    return "\n".join(lines)


def sequential_runner(fgraph, storage, thunks, labels=None):
    """Return a runner that fills inputs, runs `thunks` in order and returns the outputs.

    The result is the bare value for a one-output graph, else a list.
    """
    order = fgraph.toposort() if labels is None else labels
    input_cells = [storage[v] for v in fgraph.inputs]
    output_cells = [storage[v] for v in fgraph.outputs]
    kept = set(map(id, fgraph.inputs)) | {id(v) for v in storage if isinstance(v, Constant)}
    transient = [cell for v, cell in storage.items() if id(v) not in kept]
    single = len(output_cells) == 1

    def run(*values):
        for cell, value in zip(input_cells, values):
            cell[0] = value
        try:
            for node, thunk in zip(order, thunks):
                try:
                    thunk()
                except Exception as exc:
                    if hasattr(node, "inputs"):
                        add_note(exc, describe_node(node, [storage[v][0] for v in node.inputs]))
                    else:
                        add_note(exc, f"while running {node}")
                    raise
            if single:
                return output_cells[0][0]
            return [cell[0] for cell in output_cells]
        finally:
            for cell in transient:
                cell[0] = None
            for cell in input_cells:
                cell[0] = None

    return run

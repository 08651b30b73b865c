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


def sequential_runner(fgraph, build, labels=None):
    """Return a runner that fills inputs, runs the thunks in order and returns the outputs.

    `build(storage, compute_map)` returns the thunks over one set of storage
    cells. Each call runs on cells of its own: calls from several threads at
    once, and a call made from inside a running call (an op's perform calling
    the function it belongs to), each take an idle set or build a new one. The
    result is the bare value for a one-output graph, else a list.
    """
    order = fgraph.toposort() if labels is None else labels
    single = len(fgraph.outputs) == 1
    idle = []

    def new_instance():
        storage = make_storage(fgraph)
        compute_map = {v: [isinstance(v, Constant)] for v in storage}
        return _Instance(fgraph, storage, build(storage, compute_map))

    def run(*values):
        try:
            instance = idle.pop()  # atomic under the GIL: no two calls share an instance
        except IndexError:
            instance = None
        if instance is None:  # built outside the except: its errors are not shown "during handling of" IndexError
            instance = new_instance()
        try:
            outputs = instance.run(values, order)
        finally:
            idle.append(instance)
        return outputs[0] if single else outputs

    return run


class _Instance:
    """One set of storage cells with the thunks that read and write them."""

    def __init__(self, fgraph, storage, thunks):
        self.storage = storage
        self.thunks = thunks
        self.input_cells = [storage[v] for v in fgraph.inputs]
        self.output_cells = [storage[v] for v in fgraph.outputs]
        kept = set(map(id, fgraph.inputs)) | {id(v) for v in storage if isinstance(v, Constant)}
        self.transient = [cell for v, cell in storage.items() if id(v) not in kept]

    def run(self, values, order):
        for cell, value in zip(self.input_cells, values):
            cell[0] = value
        try:
            for node, thunk in zip(order, self.thunks):
                try:
                    thunk()
                except Exception as exc:
                    if hasattr(node, "inputs"):
                        add_note(exc, describe_node(node, [self.storage[v][0] for v in node.inputs]))
                    else:
                        add_note(exc, f"while running {node}")
                    raise
            return [cell[0] for cell in self.output_cells]
        finally:
            for cell in self.transient:
                cell[0] = None
            for cell in self.input_cells:
                cell[0] = None

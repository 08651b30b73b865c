"""DebugMode: run every node through perform and its C code, compare them, and check for side effects.

Each node runs on private copies of its inputs, once per implementation
(``perform`` or ``debug_perform``, and the node's own compiled module when it
has C code). DebugMode then checks that the implementations agree, that no
input changed unless ``destroy_map`` says so, that no output shares memory with
an input unless ``view_map`` says so, and that repeated calls do not pile up
references or memory. The C result (perform's when there is no C) flows on.
"""

from __future__ import annotations

from opkit.link.debugmode_checks import (check_inputs_unchanged, check_outputs_do_not_alias, check_repeated_calls,
                                         compare_outputs, copy_value)
from opkit.core.graph import Constant
from opkit.link.py_linker import python_thunk
from opkit.link.runner import describe_node, sequential_runner
from opkit.link.mode import Mode

C_CODE = "C code"


class DebugModeError(AssertionError):
    """A node failed a DebugMode check: `kind` says which, `details` holds the facts."""

    def __init__(self, message, node=None, op=None, kind=None, details=None):
        self.node = node
        self.op = op
        self.kind = kind
        self.details = dict(details or {})
        self.message = message
        super().__init__(message)

    def add_note(self, note):
        # The runner notes the failing node on every error; this message already names it.
        if note.splitlines()[0] not in self.message:
            super().add_note(note)


DebugModeError.__module__ = "opkit"


class DebugMode(Mode):
    """FAST_RUN's rewrites, then every node run through perform and C and checked."""

    def __init__(self, linker=None, optimizer="fast_run", excluded=(), repeats=3):
        if linker is None:
            linker = DebugLinker(repeats)
        elif not isinstance(linker, DebugLinker):
            raise TypeError(f"DebugMode runs its own linker; got linker={linker!r}. "
                            "Use opkit.Mode(linker=...) to choose a linker.")
        super().__init__(linker, optimizer, excluded)

    def __repr__(self):
        return f"DebugMode(optimizer={self.optimizer!r}, repeats={self.linker.repeats})"


class DebugLinker:
    """Run each node through every implementation it has, checking each call."""

    name = "debug"

    def __init__(self, repeats=3):
        if repeats < 2:
            raise ValueError(f"repeats must be at least 2 to see growth per call, not {repeats!r}")
        self.repeats = repeats

    def make_runner(self, fgraph):
        from opkit.cop.cinterface import op_has_c

        order = fgraph.toposort()
        use_c = any(op_has_c(node) for node in order) and _compiler_available()
        checkers = [NodeChecker(node, use_c, self.repeats) for node in order]
        return sequential_runner(fgraph, lambda storage, compute_map: [c.thunk(storage) for c in checkers], order)


def _compiler_available():
    """Return True if C can be compiled (False, with a warning, under python_fallback)."""
    from opkit.link.c_linker import _compiler_or_fallback

    return _compiler_or_fallback()


class Implementation:
    """One way of computing a node (perform or C) over private storage cells."""

    def __init__(self, label, node, make_thunk):
        self.label = label
        cells = {variable: [None] for variable in node.inputs + node.outputs}
        self.compute = make_thunk(node, cells, {variable: [False] for variable in cells})
        self.input_cells = [cells[v] for v in node.inputs]
        self.output_cells = [cells[v] for v in node.outputs]

    def run(self, values):
        """Compute the node from `values` and return its outputs (the cells keep them too)."""
        self.clear()
        for cell, value in zip(self.input_cells, values):
            cell[0] = value
        try:
            self.compute()
            return [cell[0] for cell in self.output_cells]
        finally:
            for cell in self.input_cells:
                cell[0] = None

    def clear(self):
        """Forget the outputs of the last run."""
        for cell in self.output_cells:
            cell[0] = None


def _debug_perform_thunk(node, storage, compute_map):
    inputs = [storage[v] for v in node.inputs]
    outputs = [storage[v] for v in node.outputs]
    debug_perform = node.op.debug_perform

    def thunk():
        debug_perform(node, [cell[0] for cell in inputs], outputs)

    return thunk


def _c_thunk(node, storage, compute_map):
    from opkit.link.c_linker import node_c_thunk

    return node_c_thunk(node, storage, compute_map)


def implementations(node, use_c):
    """Return the node's implementations: perform (or debug_perform), then C when it has it."""
    from opkit.cop.cinterface import op_has_c

    found = []
    if callable(getattr(node.op, "debug_perform", None)):
        found.append(Implementation("debug_perform", node, _debug_perform_thunk))
    elif node.op.has_perform():
        found.append(Implementation("perform", node, python_thunk))
    has_c = op_has_c(node)
    if has_c and (use_c or not found):
        found.append(Implementation(C_CODE, node, _c_thunk))
    if not found:
        raise NotImplementedError(f"{node.op} has neither perform() nor C code for {node}")
    return found


class NodeChecker:
    """Run one node through each implementation on copies of its inputs and check every call."""

    def __init__(self, node, use_c, repeats):
        self.node = node
        self.repeats = repeats
        self.implementations = implementations(node, use_c)

    def thunk(self, storage):
        """Return a thunk reading the node's inputs from `storage` and storing the checked outputs."""
        inputs = [storage[v] for v in self.node.inputs]
        outputs = [storage[v] for v in self.node.outputs]

        def thunk():
            for cell, value in zip(outputs, self.run([cell[0] for cell in inputs])):
                cell[0] = value

        return thunk

    def run(self, values):
        """Return the node's outputs (C's when it has C) after checking every implementation."""
        node = self.node
        originals = [copy_value(value) for value in values]
        results = {}
        for implementation in self.implementations:
            given = self._inputs_for(implementation, values)
            outputs = implementation.run(given)
            self._raise(check_inputs_unchanged(node, implementation.label, given, originals), values)
            self._raise(check_outputs_do_not_alias(node, implementation.label, given, outputs), values)
            scratch = self._inputs_for(implementation, values)
            self._raise(check_repeated_calls(node, implementation.label, implementation.run, implementation.clear,
                                             scratch, self.repeats, compiled=implementation.label == C_CODE),
                        values)
            results[implementation.label] = outputs
        if len(results) == 2:
            (python_label, python_values), (_, c_values) = results.items()
            self._raise(compare_outputs(node.outputs, python_values, c_values, python_label), values)
        return results[self.implementations[-1].label]

    def _inputs_for(self, implementation, values):
        """Return private copies of `values`; C reads constants from its module, so those are the originals."""
        return [variable.data if implementation.label == C_CODE and isinstance(variable, Constant)
                else copy_value(value) for variable, value in zip(self.node.inputs, values)]

    def _raise(self, problem, values):
        if problem is None:
            return
        node = self.node
        message = "\n".join([f"DebugMode: {problem.summary}", describe_node(node, values), *problem.lines])
        raise DebugModeError(message, node=node, op=node.op, kind=problem.kind, details=problem.details)

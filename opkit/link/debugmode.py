"""DebugMode: run every node through perform and its C code, compare them, and check for side effects.

Each node runs on private copies of its inputs, once per implementation
(``perform`` or ``debug_perform``, and the node's own compiled module when it
has C code). DebugMode then checks that the implementations agree, that no
input changed unless ``destroy_map`` says so, that no output shares memory with
an input unless ``view_map`` says so, and that repeated calls do not pile up
references or memory. The C result (perform's when there is no C) flows on.
"""

from __future__ import annotations

from opkit.link.debugmode_checks import (check_inputs_unchanged, check_output_values_valid,
                                         check_outputs_do_not_alias, check_outputs_do_not_alias_each_other,
                                         check_repeated_calls, compare_outputs, copy_value)
from opkit.link.debugmode_prealloc import preallocated_kinds, preallocated_outputs
from opkit.core.graph import Constant
from opkit.cop.generate.cinterface import op_has_c
from opkit.link.binders import node_c_thunk, python_thunk
from opkit.link.runner import describe_node, sequential_runner
from opkit.link.base_mode import Mode

C_CODE = "C code"


class DebugModeError(AssertionError):
    """A node failed a DebugMode check: `kind` says which, `details` holds the facts.

    Each kind raises its own subclass: BadThunkOutput, BadDestroyMap, BadViewMap,
    InvalidValueError; a reference leak raises DebugModeError itself.
    """

    def __init__(self, message, node=None, op=None, kind=None, details=None):
        self.node = node
        self.op = op
        self.kind = kind
        self.details = dict(details or {})
        self.message = message
        super().__init__(message)
        self._upstream_names()

    def _upstream_names(self):
        """Theano's and PyTensor's attributes of the error, from `details`: ``r`` (the output that is wrong),
        ``output_idx``, ``idx`` (the input changed), ``in_alias_idx``/``out_alias_idx``, ``val1``/``val2``."""
        details, node = self.details, self.node
        if "output" in details:
            self.output_idx = details["output"]
            self.r = node.outputs[self.output_idx] if node is not None else None
        if "outputs" in details:
            self.output_idx, self.out_alias_idx = details["outputs"]
            self.r = node.outputs[self.output_idx] if node is not None else None
        if "input" in details:
            self.idx = self.in_alias_idx = details["input"]
        self.val1, self.val2 = details.get("perform_value"), details.get("c_value")

    def add_note(self, note):
        # The runner notes the failing node on every error; this message already names it.
        if note.splitlines()[0] not in self.message:
            super().add_note(note)


class BadThunkOutput(DebugModeError):
    """Two implementations of a node disagree (perform and C, or perform or C with preallocated outputs)."""


class BadDestroyMap(DebugModeError):
    """An implementation modified an input that the op's destroy_map does not list."""


class BadViewMap(DebugModeError):
    """An output shares memory with an input, or with another output, and view_map does not say so."""


class InvalidValueError(DebugModeError):
    """An implementation returned a value its output's type does not accept (wrong dtype, ndim, shape)."""


ERRORS = {"mismatch": BadThunkOutput, "input_modified": BadDestroyMap, "output_aliases_input": BadViewMap,
          "outputs_alias": BadViewMap, "invalid_value": InvalidValueError}
"""The DebugModeError subclass each kind of problem raises (others raise DebugModeError)."""

for _cls in (DebugModeError, BadThunkOutput, BadDestroyMap, BadViewMap, InvalidValueError):
    _cls.__module__ = "opkit"


class DebugMode(Mode):
    """FAST_RUN's rewrites, then every node run through perform and C and checked.

    `check_py_code` runs perform (compared with C where both exist), `check_c_code`
    runs the C code; a node with only one of them always runs it.
    `check_preallocated_output` lists the kinds of arrays perform and C also find in their
    output cells ("c_contiguous", "f_contiguous", "strided", "wrong_size", "previous",
    "initial", or "ALL"); their results must not change.
    """

    def __init__(self, linker=None, optimizer="fast_run", excluded=(), repeats=3, check_py_code=True,
                 check_c_code=True, check_preallocated_output=(), device=None):
        if linker is None:
            linker = DebugLinker(repeats, check_py_code, check_c_code, check_preallocated_output)
        elif not isinstance(linker, DebugLinker):
            raise TypeError(f"DebugMode runs its own linker; got linker={linker!r}. "
                            "Use opkit.Mode(linker=...) to choose a linker.")
        super().__init__(linker, optimizer, excluded, device=device)

    def __repr__(self):
        linker = self.linker
        return (f"DebugMode(optimizer={self.optimizer!r}, repeats={linker.repeats}, "
                f"check_py_code={linker.check_py_code}, check_c_code={linker.check_c_code}, "
                f"check_preallocated_output={linker.check_preallocated_output})")


class DebugLinker:
    """Run each node through every implementation it has, checking each call."""

    name = "debug"

    def __init__(self, repeats=3, check_py_code=True, check_c_code=True, check_preallocated_output=()):
        if repeats < 2:
            raise ValueError(f"repeats must be at least 2 to see growth per call, not {repeats!r}")
        if not (check_py_code or check_c_code):
            raise ValueError("DebugMode needs check_py_code or check_c_code (or both) to be True")
        self.repeats = repeats
        self.check_py_code = bool(check_py_code)
        self.check_c_code = bool(check_c_code)
        self.check_preallocated_output = preallocated_kinds(check_preallocated_output)

    def make_runner(self, fgraph, backend):
        """Return the checking runner of `fgraph`; without a compiler (see `backend`) C is not checked:
        under python_fallback with a warning, else the compiler's error is raised."""
        order = fgraph.toposort()
        use_c = (self.check_c_code and any(op_has_c(node) for node in order)
                 and backend.compiles_or_warns("Python perform()"))
        clients = fgraph.clients()
        checkers = [NodeChecker(node, backend, use_c, self.repeats, self.check_py_code, self.check_preallocated_output,
                                [any(user != "output" for user, _ in clients.get(out, ())) for out in node.outputs])
                    for node in order]
        return sequential_runner(fgraph, lambda storage, compute_map: [c.thunk(storage) for c in checkers], order)


class Implementation:
    """One way of computing a node (perform or C) over private storage cells."""

    def __init__(self, label, node, make_thunk):
        self.label = label
        cells = {variable: [None] for variable in node.inputs + node.outputs}
        self.compute = make_thunk(node, cells, {variable: [False] for variable in cells})
        self.input_cells = [cells[v] for v in node.inputs]
        self.output_cells = [cells[v] for v in node.outputs]

    def run(self, values, preallocated=None):
        """Compute the node from `values` and return its outputs (the cells keep them too).

        `preallocated` puts values in the output cells first (what perform may reuse).
        """
        self.clear()
        for cell, value in zip(self.output_cells, preallocated or ()):
            cell[0] = value
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


def _c_thunk_maker(backend, preallocated):
    """Return `make_thunk(node, storage, compute_map)` running the node's module for `backend`; with
    `preallocated`, its code finds what the output cells hold before a call (see Implementation.run)."""
    def make_thunk(node, storage, compute_map):
        return node_c_thunk(node, storage, backend, compute_map, preallocated)

    return make_thunk


def implementations(node, backend, use_c, check_py_code=True, preallocated=False):
    """Return the node's implementations: perform (or debug_perform), then C when it has it.

    Without `check_py_code`, perform runs only for a node without C code. With
    `preallocated` the C code is compiled to take the arrays in its output cells.
    `backend` (the function's) says how a node's module is found: built, or shipped.
    """
    has_c = op_has_c(node)
    found = []
    if check_py_code or not (has_c and use_c):
        if callable(getattr(node.op, "debug_perform", None)):
            found.append(Implementation("debug_perform", node, _debug_perform_thunk))
        elif node.op.has_perform():
            found.append(Implementation("perform", node, python_thunk))
    if has_c and (use_c or not found):
        found.append(Implementation(C_CODE, node, _c_thunk_maker(backend, preallocated)))
    if not found:
        raise NotImplementedError(f"{node.op} has neither perform() nor C code for {node}")
    return found


class NodeChecker:
    """Run one node through each implementation on copies of its inputs and check every call."""

    def __init__(self, node, backend, use_c, repeats, check_py_code=True, preallocated=(), used=None):
        self.node = node
        self.used = used  # which outputs later nodes read (None: all), for the check of outputs sharing memory
        self.repeats = repeats
        self.preallocated = preallocated
        self.implementations = implementations(node, backend, use_c, check_py_code, bool(preallocated))

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
        originals = [copy_value(value) for value in values]
        results = {}
        for implementation in list(self.implementations):
            outputs = self._check(implementation, values, originals)
            if outputs is not None:
                results[implementation.label] = outputs
        if len(results) == 2:
            (python_label, python_values), (_, c_values) = results.items()
            problem = compare_outputs(self.node.outputs, python_values, c_values, python_label)
            if problem is not None:  # the two values themselves, as Theano's and PyTensor's val1 and val2
                position = problem.details["output"]
                problem.details.update(perform_value=python_values[position], c_value=c_values[position])
            self._raise(problem, values)
        return results[self.implementations[-1].label]

    def _check(self, implementation, values, originals):
        """Run one implementation and check it; return its outputs (None: a perform that is not implemented)."""
        node = self.node
        given = self._inputs_for(implementation, values)
        try:
            outputs = implementation.run(given)
        except NotImplementedError:
            # The usual idiom of a C-only op: perform raises NotImplementedError. Its C code is still
            # checked (destroy, view, aliasing, references), with nothing to compare it with.
            if implementation.label == C_CODE or self.implementations[-1].label != C_CODE:
                raise
            self.implementations.remove(implementation)
            return None
        label = implementation.label
        self._raise(check_inputs_unchanged(node, label, given, originals), values)
        self._raise(check_output_values_valid(node, label, outputs), values)
        self._raise(check_outputs_do_not_alias(node, label, given, outputs), values)
        self._raise(check_outputs_do_not_alias_each_other(node, label, outputs, self.used), values)
        scratch = self._inputs_for(implementation, values)
        self._raise(check_repeated_calls(node, label, implementation.run, implementation.clear,
                                         scratch, self.repeats, compiled=label == C_CODE), values)
        self._check_preallocated(implementation, values, outputs)
        return outputs

    def _check_preallocated(self, implementation, values, reference):
        """Run perform or C again with each kind of preallocated output; its results must not change."""
        for kind in self.preallocated:
            outputs = implementation.run(self._inputs_for(implementation, values),
                                         preallocated_outputs(kind, reference))
            other = (f"{implementation.label} with preallocated outputs ({kind})", f"preallocated {kind}")
            self._raise(compare_outputs(self.node.outputs, reference, outputs, implementation.label, other), values)

    def _inputs_for(self, implementation, values):
        """Return private copies of `values`; C reads constants from its module, so those are the originals."""
        return [variable.data if implementation.label == C_CODE and isinstance(variable, Constant)
                else copy_value(value) for variable, value in zip(self.node.inputs, values)]

    def _raise(self, problem, values):
        if problem is None:
            return
        node = self.node
        message = "\n".join([f"DebugMode: {problem.summary}", describe_node(node, values), *problem.lines])
        error = ERRORS.get(problem.kind, DebugModeError)
        raise error(message, node=node, op=node.op, kind=problem.kind, details=problem.details)

"""Linkers that run a graph twice in lockstep and compare: Theano's ``DualLinker`` and ``WrapLinker``.

- ``DualLinker(checker=...)``: each node through perform and through its own C, on separate
  storage, calling ``checker(perform_cell, c_cell)`` for every output (default: the output type's
  ``values_eq_approx``, raising ``OutputMismatch``).
- ``WrapLinker(linkers, wrapper)``: several local linkers in lockstep, ``wrapper(i, node, *thunks)``.

The interface they share with CLinker and PerformLinker is opkit.link.theano_linkers'.
"""

from __future__ import annotations

import copy

from opkit.errors import add_note
from opkit.link.binders import node_binder, python_binder, warn_fell_back
from opkit.link.debugmode_checks import copy_value
from opkit.link.runner import describe_node, make_storage, sequential_runner
from opkit.link.theano_linkers import Linker
from opkit.core.graph import Constant


class OutputMismatch(Exception):
    """DualLinker's default checker: perform and C disagree. ``args`` are Theano's; the values are attributes."""

    def __init__(self, perform_value, c_value, variable=None):
        super().__init__("Output mismatch.", {"performlinker": perform_value, "clinker": c_value})
        self.perform_value, self.c_value, self.variable = perform_value, c_value, variable


def _type_checker(variable):
    """Return the default check of one output: equal by its type's values_eq_approx (exact for integers)."""
    def check(perform_cell, c_cell):
        a, b = perform_cell[0], c_cell[0]
        if (a is None) != (b is None) or (a is not None and not variable.type.values_eq_approx(a, b)):
            raise OutputMismatch(a, b, variable)

    return check


class DualLinker(Linker):
    """Run every node through perform and through its C code, each on its own storage, and compare.

    ``checker(perform_cell, c_cell)`` is called for each output of each node (cells are one-item
    lists); it raises to report a mismatch. The default compares with the output type's
    ``values_eq_approx`` and raises OutputMismatch. The values perform computes flow on, as in Theano.
    """

    def __init__(self, checker=None, schedule=None):
        self.checker = checker
        self.schedule_function = schedule

    def make_runner(self, fgraph, backend):
        order = fgraph.toposort()
        fell_back = []
        perform = [python_binder(node, backend) for node in order]
        c_code = [node_binder(node, backend, fell_back) for node in order]
        if fell_back:
            warn_fell_back(fell_back, stacklevel=3)
        checks = [[self.checker or _type_checker(v) for v in node.outputs] for node in order]

        def build(storage, compute_map):
            c_storage = make_storage(fgraph)
            c_computed = {v: [isinstance(v, Constant)] for v in c_storage}
            pairs = [(p(storage, compute_map), c(c_storage, c_computed)) for p, c in zip(perform, c_code)]
            copied = [(storage[v], c_storage[v]) for v in fgraph.inputs]

            def copy_inputs():
                for cell, c_cell in copied:
                    c_cell[0] = copy_value(cell[0])

            return [copy_inputs] + [_lockstep(node, pair, storage, c_storage, node_checks)
                                    for node, pair, node_checks in zip(order, pairs, checks)]

        return sequential_runner(fgraph, build, ["the copy of the inputs for C", *order])


def _lockstep(node, pair, storage, c_storage, checks):
    perform, c_code = pair
    cells = [(storage[v], c_storage[v]) for v in node.outputs]

    def thunk():
        perform()
        c_code()
        for check, (cell, c_cell) in zip(checks, cells):
            check(cell, c_cell)

    return thunk


class WrapLinker(Linker):
    """Run several LocalLinkers in lockstep on their own storage; ``wrapper(i, node, *thunks)`` runs node i.

    The first linker's inputs and outputs are the thunk's; the others get copies of its inputs.
    PyTensor's WrapLinker passes the graph first, ``wrapper(fgraph, i, node, *thunks)``: ``pass_fgraph``.
    """

    pass_fgraph = False

    def __init__(self, linkers, wrapper):
        self.linkers = list(linkers)
        self.wrapper = wrapper

    def __copy__(self):
        made = type(self)([copy.copy(linker) for linker in self.linkers], self.wrapper)
        made.fgraph, made.no_recycling, made.backend = self.fgraph, self.no_recycling, self.backend
        return made

    def clone(self, allow_gc=None):
        return type(self)([linker.clone(allow_gc) for linker in self.linkers], self.wrapper)

    def accept(self, fgraph, no_recycling=None, profile=None):
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        super().accept(fgraph, no_recycling, profile)
        self.linkers = [linker.accept(fgraph, no_recycling) for linker in self.linkers]
        return self

    def pre(self, f, inputs, order, thunk_groups):
        """Called before each run with the input values; override to inspect them."""

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        self._accepted()
        made = [self.linkers[0].make_all(input_storage, output_storage, storage_map)]
        made += [linker.make_all(output_storage=output_storage) for linker in self.linkers[1:]]
        _, input_lists, output_lists, thunk_lists, orders = zip(*made)
        if any(list(order) != list(orders[0]) for order in orders[1:]):
            raise ValueError("All linkers to WrapLinker should execute operations in the same order.")
        order, thunk_groups = orders[0], list(zip(*thunk_lists))
        head = (self.fgraph,) if self.pass_fgraph else ()

        def f():
            for inputs in input_lists[1:]:
                for first, other in zip(input_lists[0], inputs):
                    other.storage[0] = copy.copy(first.storage[0])
            self.pre(self, [c.data for c in input_lists[0]], order, thunk_groups)
            for i, (thunks, node) in enumerate(zip(thunk_groups, order)):
                try:
                    self.wrapper(*head, i, node, *thunks)
                except Exception as exc:
                    add_note(exc, describe_node(node))
                    raise

        f.thunk_groups = thunk_groups
        return f, input_lists[0], output_lists[0]


def WrapLinkerMany(linkers, wrappers):  # noqa: N802  (Theano's name)
    """A WrapLinker whose wrapper runs each of `wrappers` in turn."""
    def wrapper(*args):
        for function in wrappers:
            function(*args)

    return WrapLinker(linkers, wrapper)


__all__ = ["DualLinker", "OutputMismatch", "WrapLinker", "WrapLinkerMany"]

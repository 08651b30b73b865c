"""Theano's and PyTensor's linker interface over opkit's linkers: ``CLinker().accept(fgraph).make_function()``.

Op authors' tests drive a linker by hand: ``accept(fgraph, no_recycling=None)`` ties it to a
FunctionGraph and returns it; ``make_thunk()`` returns ``(thunk, input_containers,
output_containers)`` (set ``container.data``, call the thunk, read the outputs' ``data``);
``make_function()`` returns a callable over the graph's inputs. The classes are opkit's
linkers underneath, so an instance also serves as ``opkit.Mode(linker=...)``:

- ``CLinker``: the whole graph as compiled C (GraphCLinker); a node without C code is an error.
- ``OpWiseCLinker``: a module per node, perform where a node has no C (NodeCLinker).
- ``PerformLinker``: every node through perform (PyLinker).
- ``DualLinker`` and ``WrapLinker``, which run a graph twice in lockstep: opkit.link.lockstep_linkers.

opkit never overwrites an output a caller still holds, so ``no_recycling`` is recorded and needs
nothing more. A ``schedule(fgraph) -> nodes`` orders the per-node linkers' ``make_all``
(PerformLinker, OpWiseCLinker); CLinker and the runners made for ``opkit.Mode`` order the
nodes themselves.
"""

from __future__ import annotations

import copy

from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.codegen import collect_module, render_module
from opkit.cop.generate.region import Region
from opkit.cop.toolchain.identity import region_key
from opkit.core.graph import Constant, Variable
from opkit.decision import decide
from opkit.errors import add_note
from opkit.link.binders import node_binder, python_binder, warn_fell_back
from opkit.link.c_linker import GraphCLinker, NodeCLinker
from opkit.link.partition import partition
from opkit.link.py_linker import PyLinker
from opkit.link.runner import describe_node, make_storage


class Container:
    """A variable's storage cell (Theano's ``link.Container``): setting ``data`` filters through its type."""

    def __init__(self, r, storage, readonly=False, strict=False, allow_downcast=None, name=None):
        if not isinstance(storage, list) or not storage:
            raise TypeError(f"storage must be a list of length at least one, not {storage!r}")
        self.type = r.type if isinstance(r, Variable) else r
        self.name = name if name is not None else getattr(r, "name", None)
        self.storage = storage
        self.readonly = readonly
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.required = False
        self.implicit = False
        self.provided = 0

    @property
    def data(self):
        return self.storage[0]

    @data.setter
    def data(self, value):
        if self.readonly:
            raise Exception(f"Cannot set readonly storage: {self.name}")
        self.storage[0] = None if value is None else self.type.filter(value, strict=self.strict,
                                                                       allow_downcast=self.allow_downcast)

    value = data

    def __str__(self):
        return f"<{self.storage[0]}>"

    def __repr__(self):
        return f"<{self.storage[0]!r}>"


class Linker:
    """Theano's linker protocol: ``accept`` a FunctionGraph, then ``make_thunk`` or ``make_function``."""

    fgraph = None
    no_recycling = ()
    schedule_function = None
    backend = None  # decided by accept: this protocol makes a callable outside opkit.function

    def accept(self, fgraph, no_recycling=None, profile=None):
        """Tie this linker to `fgraph` and return it (a fresh copy if it is tied to another graph).

        The backend is decided here, this protocol's entry, and passed to every runner and binder below.
        """
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        self.fgraph = fgraph
        self.no_recycling = [] if no_recycling is None else no_recycling
        self.backend = decide()
        return self

    def clone(self, allow_gc=None):
        """Return a copy of this linker tied to no graph."""
        made = copy.copy(self)
        made.fgraph = None
        made.backend = None
        if allow_gc is not None:
            made.allow_gc = allow_gc
        return made

    def schedule(self, fgraph):
        """Return the order make_all runs the nodes in: the `schedule` given to the linker, else a toposort."""
        return list(self.schedule_function(fgraph)) if self.schedule_function else fgraph.toposort()

    def _accepted(self):
        if self.fgraph is None:
            raise ValueError(f"{type(self).__name__} has no graph: call accept(fgraph) first, "
                             f"e.g. {type(self).__name__}().accept(fgraph).make_function()")
        return self.fgraph

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        """Return ``(thunk, input_containers, output_containers)``: the thunk computes the outputs' cells."""
        fgraph = self._accepted()
        run = self.make_runner(fgraph, self.backend)
        inputs = _cells(fgraph.inputs, input_storage, storage_map)
        outputs = _cells(fgraph.outputs, output_storage, storage_map)
        single = len(fgraph.outputs) == 1

        def thunk():
            values = run(*[cell[0] for cell in inputs])
            for cell, value in zip(outputs, [values] if single else values):
                cell[0] = value

        return self._wrap_thunk(thunk), *_containers(fgraph, inputs, outputs)

    def _wrap_thunk(self, thunk):
        return thunk

    def make_function(self, unpack_single=True, **kwargs):
        """Return ``fn(*inputs)``: the outputs' values (the only one bare when `unpack_single`)."""
        thunk, inputs, outputs = self.make_thunk(**kwargs)

        def execute(*args):
            if len(args) != len(inputs):
                raise TypeError(f"Function call takes exactly {len(inputs)} "
                                f"argument{'s' if len(inputs) != 1 else ''} ({len(args)} given)")
            for container, value in zip(inputs, args):
                container.data = value
            thunk()
            values = [container.data for container in outputs]
            return values[0] if unpack_single and len(values) == 1 else values

        execute.thunk, execute.inputs, execute.outputs = thunk, inputs, outputs
        return execute


def _cells(variables, given, storage_map):
    """Return a storage cell per variable: `given`'s, else `storage_map`'s, else a new one (kept in the map)."""
    if given is not None:
        if len(given) != len(variables):
            raise ValueError(f"{len(given)} storage cells given for {len(variables)} variables")
        cells = list(given)
    else:
        cells = [storage_map[v] if storage_map is not None and v in storage_map else [None] for v in variables]
    if storage_map is not None:
        for variable, cell in zip(variables, cells):
            storage_map[variable] = cell
    return cells


def _containers(fgraph, inputs, outputs):
    return ([Container(v, cell) for v, cell in zip(fgraph.inputs, inputs)],
            [Container(v, cell, readonly=True) for v, cell in zip(fgraph.outputs, outputs)])


class NodeThunk:
    """One node's thunk with the cells it reads and writes (Theano's ``thunk.inputs``/``outputs``)."""

    def __init__(self, node, run, inputs, outputs):
        self.node, self.run, self.inputs, self.outputs = node, run, inputs, outputs

    def __call__(self):
        self.run()


class LocalLinker(Linker):
    """A linker with a thunk per node over one storage map (Theano's ``make_all``), as WrapLinker needs."""

    allow_gc = True

    def node_binder(self, node, fell_back):
        """Return ``bind(storage, compute_map) -> thunk`` for one node."""
        raise NotImplementedError

    def make_all(self, input_storage=None, output_storage=None, storage_map=None, profiler=None):
        """Return ``(f, input_containers, output_containers, node_thunks, order)``."""
        fgraph = self._accepted()
        order = self.schedule(fgraph)
        storage = make_storage(fgraph)
        storage.update(storage_map or {})
        inputs = _cells(fgraph.inputs, input_storage, storage)
        outputs = _cells(fgraph.outputs, output_storage, storage)
        compute_map = {v: [isinstance(v, Constant) or v.owner is None] for v in storage}
        fell_back = []
        binders = [self.node_binder(node, fell_back) for node in order]
        if fell_back:
            warn_fell_back(fell_back, stacklevel=3)
        thunks = [NodeThunk(node, bind(storage, compute_map), [storage[v] for v in node.inputs],
                            [storage[v] for v in node.outputs]) for node, bind in zip(order, binders)]
        kept = {id(cell) for cell in inputs + outputs} | {id(storage[v]) for v in storage if isinstance(v, Constant)}
        transient = [cell for cell in storage.values() if id(cell) not in kept]

        def f():
            for node, thunk in zip(order, thunks):
                try:
                    thunk()
                except Exception as exc:
                    add_note(exc, describe_node(node, [cell[0] for cell in thunk.inputs]))
                    raise
            if self.allow_gc:
                for cell in transient:
                    cell[0] = None

        return f, *_containers(fgraph, inputs, outputs), thunks, order

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        return self.make_all(input_storage, output_storage, storage_map)[:3]


class PerformLinker(PyLinker, LocalLinker):
    """Every node through its perform (opkit's 'py' linker), with Theano's accept/make_function."""

    def __init__(self, allow_gc=None, schedule=None):
        self.allow_gc = True if allow_gc is None else allow_gc
        self.schedule_function = schedule

    def node_binder(self, node, fell_back):
        return python_binder(node, self.backend)


class OpWiseCLinker(NodeCLinker, LocalLinker):
    """Each node through its own compiled module (opkit's 'cop' linker); perform where a node has no C.

    With ``fallback_on_perform=False`` a node without C code is an error.
    """

    def __init__(self, fallback_on_perform=True, allow_gc=None, nice_errors=True, schedule=None):
        self.fallback_on_perform = fallback_on_perform
        self.allow_gc = True if allow_gc is None else allow_gc
        self.nice_errors = nice_errors
        self.schedule_function = schedule

    def make_runner(self, fgraph, backend):
        if not self.fallback_on_perform:
            require_c(fgraph, "OpWiseCLinker(fallback_on_perform=False)")
        return super().make_runner(fgraph, backend)

    def node_binder(self, node, fell_back):
        if not self.fallback_on_perform:
            require_c_node(node, "OpWiseCLinker(fallback_on_perform=False)")
        return node_binder(node, self.backend, fell_back)


def require_c_node(node, linker):
    if not op_has_c(node):
        op = node.op
        raise NotImplementedError(
            f"{linker} runs C code only, and {node} has none ({type(op).__module__}.{type(op).__qualname__}: "
            "no c_code, or a type without a C interface).\nHint: use OpWiseCLinker(), which runs perform() "
            "for the nodes that have no C code.")


def require_c(fgraph, linker):
    for node in fgraph.toposort():
        require_c_node(node, linker)


class CLinker(GraphCLinker, Linker):
    """The whole graph as compiled C (opkit's 'c' linker), with Theano's accept/make_thunk/make_function.

    ``code_gen()`` returns the generated module's source, ``cmodule_key()`` its cache key.
    """

    def __init__(self, schedule=None):
        self.schedule_function = schedule

    def make_runner(self, fgraph, backend):
        require_c(fgraph, "CLinker")
        self.single_region = None  # set by GraphCLinker when the graph is one module
        return super().make_runner(fgraph, backend)

    def _wrap_thunk(self, thunk):
        region = getattr(self, "single_region", None)
        return CThunk(thunk, self.fgraph.toposort(), getattr(region, "module", None))

    def regions(self):
        """Return the C regions of the accepted graph, as make_runner compiles them (one for a whole graph)."""
        fgraph = self._accepted()
        require_c(fgraph, "CLinker")
        steps = partition(fgraph, self.backend.target)
        if len(steps) == 1 and isinstance(steps[0], Region):
            steps[0].inputs, steps[0].outputs = list(fgraph.inputs), list(fgraph.outputs)
        return [step for step in steps if isinstance(step, Region)]

    def code_gen(self):
        """Return the C++ source of the accepted graph's module(s)."""
        return "\n".join(render_module(region).source for region in self.regions())

    def cmodule_key(self):
        """Return the cache key of the module (a tuple of keys where the graph compiles to several)."""
        keys = tuple(region_key(collect_module(region)) for region in self.regions())
        return keys[0] if len(keys) == 1 else keys


class CThunk:
    """What ``CLinker.make_thunk`` returns: call it to run the module; ``nodes`` and ``module`` say what it runs."""

    def __init__(self, run, nodes, module):
        self.run, self.nodes, self.module = run, nodes, module

    def __call__(self):
        self.run()

    def __str__(self):
        name = getattr(self.module, "__name__", None) or "several modules"
        return f"_CThunk(module={name}, nodes={len(self.nodes)})"

    __repr__ = __str__


__all__ = ["CLinker", "Container", "LocalLinker", "Linker", "OpWiseCLinker", "PerformLinker"]

"""Per-node binders: how one node (or one C region) runs over storage cells, for every linker.

A *binder* is ``bind(storage, compute_map) -> thunk``; a *region binder* is
``bind(storage) -> thunk``. The linkers (py_linker, c_linker, debugmode) only
arrange these: none imports another linker. A node with C code runs its
compiled module with a compiler (the Backend says: cop's `build_region`), else
the module a package ships for it (`load_region`, which never asks for a
compiler; opkit.link.no_compiler says what is missing when none does). Every
binder takes the backend its function decided: none decides it again.
"""

from __future__ import annotations

import warnings

from opkit.core.op import Op
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.compile import build_region, load_region, make_region_runner
from opkit.cop.generate.region import Region
from opkit.errors import MissingModuleError
from opkit.link.no_compiler import missing_module_error
from opkit.link.profiling import active
from opkit.link.runner import sequential_runner


def python_thunk(node, storage, compute_map):
    """Return the node's Python thunk (its own make_thunk, else perform); None without perform."""
    op = node.op
    if not op.has_perform():
        return None
    make_py_thunk = getattr(op, "make_py_thunk", None)
    if make_py_thunk is not None and _default_make_thunk(op):
        return make_py_thunk(node, storage, compute_map, [])
    return op.make_thunk(node, storage, compute_map, [])


def _default_make_thunk(op):
    return "make_thunk" not in getattr(op, "__dict__", {}) and type(op).make_thunk is Op.make_thunk


def node_c_runner(node, backend, preallocated=False):
    """Return `bind(storage) -> thunk` running `node` through its own module (see region_runner).

    With `preallocated` (DebugMode) the C code finds in each output what its
    storage cell holds before the call (None: nothing), as a reused array.
    Without a compiler and without a shipped module, raise a MissingModuleError.
    """
    if not op_has_c(node):
        op = node.op
        raise NotImplementedError(
            f"{op} ({type(op).__module__}.{type(op).__qualname__}) has neither perform() nor C code for {node}.\n"
            "Hint: define perform(node, inputs, output_storage) or c_code(node, name, inputs, outputs, sub), "
            "and check that every input and output type has a C interface.")
    region = Region.of_node(node, backend.target, preallocated)
    runner = region_runner(region, f"node {node}", backend)
    if runner is None:
        raise missing_module_error(node, backend.error)
    return region_binder(region, runner)


def region_runner(region, description, backend, shared_cells=()):
    """Return the C runner of `region`, or None where `backend` does not compile and no package ships its module.

    A compiling backend builds it (or finds it: cop's build_region); the others only
    load what a package ships (load_region: no compiler is located or run). A profiled
    function also keeps the runner to read its nodes' times.
    """
    module = build_region(region, description) if backend.compiles else load_region(region)
    if module is None:
        return None
    runner = make_region_runner(region, module, shared_cells)
    stats = active()
    if stats is not None:
        stats.add_c_region(region.nodes, runner)
    return runner


def node_c_thunk(node, storage, backend, compute_map=None, preallocated=False):
    """Return a thunk running `node` through its own compiled module over `storage` (see node_c_runner)."""
    return node_c_runner(node, backend, preallocated)(storage)


def region_binder(region, runner):
    """Return `bind(storage) -> thunk`: feed `region`'s inputs from storage cells, store its outputs.

    The compiled runner is shared by every binding: it keeps no per-call state
    that two calls could both see.
    """
    def bind(storage):
        inputs = [storage[v] for v in region.inputs]
        outputs = [storage[v] for v in region.outputs]
        if region.preallocated:
            def thunk():
                values = runner(*[c[0] for c in inputs], *[c[0] for c in outputs])
                for out, value in zip(outputs, [values] if len(outputs) == 1 else values):
                    out[0] = value
        elif len(outputs) == 1:
            cell = outputs[0]

            def thunk():
                cell[0] = runner(*[c[0] for c in inputs])
        else:
            def thunk():
                for out, value in zip(outputs, runner(*[c[0] for c in inputs])):
                    out[0] = value
        return thunk

    return bind


def python_binder(node, backend):
    """Return a binder running `node` through Python (or its own module, for `backend`, when it has no perform)."""
    if node.op.has_perform():
        stats = active()
        if stats is not None:
            return lambda storage, compute_map: stats.timed(node, python_thunk(node, storage, compute_map))
        return lambda storage, compute_map: python_thunk(node, storage, compute_map)
    bind = node_c_runner(node, backend)
    return lambda storage, compute_map: bind(storage)


def node_binder(node, backend, fell_back):
    """Return a binder of `node` for `backend`: its C module (compiled or shipped), else Python.

    Without a compiler, a node whose module no package ships raises a MissingModuleError,
    or runs perform where the backend is PYTHON (python_fallback): it is then added to the
    list `fell_back`, whose owner warns once for all of them.
    """
    if not op_has_c(node):
        return python_binder(node, backend)
    try:
        bind = node_c_runner(node, backend)
    except MissingModuleError:  # no compiler and no shipped module (cop itself raises none)
        if backend.compiles or backend.kind != "python" or not node.op.has_perform():
            raise
        fell_back.append(node)
        return python_binder(node, backend)
    return lambda storage, compute_map: bind(storage)


def warn_fell_back(nodes, stacklevel):
    """Warn once that `nodes` (with C code, no shipped module and no compiler) run their Python perform()."""
    named = ", ".join(map(str, nodes))
    warnings.warn(f"no C++ compiler and no shipped module for {named}: running {'its' if len(nodes) == 1 else 'their'} "
                  "Python perform() (OPKIT_FLAGS=python_fallback=true)", RuntimeWarning, stacklevel=stacklevel + 1)


def node_by_node_runner(fgraph, backend):
    """Return a runner of `fgraph` that runs its nodes one by one, each through node_binder (one warning)."""
    order = fgraph.toposort()
    fell_back = []
    binders = [node_binder(node, backend, fell_back) for node in order]
    if fell_back:
        warn_fell_back(fell_back, stacklevel=5)  # the caller of opkit.function
    return sequential_runner(fgraph, lambda storage, compute_map: [b(storage, compute_map) for b in binders], order)

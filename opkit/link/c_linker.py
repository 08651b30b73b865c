"""The C linkers: 'c' (whole graph, one C call) and 'cop' (one module per node)."""

from __future__ import annotations

import warnings

from opkit.config import config
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.compile import make_region_runner
from opkit.cop.generate.region import Region
from opkit.errors import CompileError
from opkit.link.partition import partition
from opkit.link.no_compiler import compiler_available, shipped_runner
from opkit.link.profiling import active
from opkit.link.py_linker import PyLinker, python_thunk
from opkit.link.runner import sequential_runner
from opkit.link.updates import python_update_runner


def node_c_runner(node, preallocated=False):
    """Compile `node` into its own module; return `bind(storage) -> thunk` running it.

    With `preallocated` (DebugMode) the C code finds in each output what its
    storage cell holds before the call (None: nothing), as a reused array.
    """
    if not op_has_c(node):
        op = node.op
        raise NotImplementedError(
            f"{op} ({type(op).__module__}.{type(op).__qualname__}) has neither perform() nor C code for {node}.\n"
            "Hint: define perform(node, inputs, output_storage) or c_code(node, name, inputs, outputs, sub), "
            "and check that every input and output type has a C interface.")
    region = Region.from_nodes([node], lambda variable: True)
    region.preallocated = preallocated
    return region_binder(region, _region_runner(region, f"node {node}"))


def _region_runner(region, description, shared_cells=()):
    """Compile `region`; a profiled function also keeps its runner to read its nodes' times."""
    runner = make_region_runner(region, description, shared_cells)
    stats = active()
    if stats is not None:
        stats.add_c_region(region.nodes, runner)
    return runner


def node_c_thunk(node, storage, compute_map=None, preallocated=False):
    """Return a thunk running `node` through its own compiled module over `storage` (see node_c_runner)."""
    return node_c_runner(node, preallocated)(storage)


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


def _compiler_or_fallback():
    """Return True if C can be compiled; with python_fallback, warn and return False instead."""
    from opkit.cop.build.compiler import find_compiler

    try:
        find_compiler()
        return True
    except CompileError:
        if not config.python_fallback:
            raise
        warnings.warn("no C++ compiler: running Python perform() (OPKIT_FLAGS=python_fallback=true); "
                      "run `opkit doctor` to fix the toolchain", RuntimeWarning, stacklevel=4)
        return False


def _python_binder(node):
    """Return `bind(storage) -> thunk` running a node through Python (or its own module without perform)."""
    if node.op.has_perform():
        stats = active()
        if stats is not None:
            return lambda storage, compute_map: stats.timed(node, python_thunk(node, storage, compute_map))
        return lambda storage, compute_map: python_thunk(node, storage, compute_map)
    bind = node_c_runner(node)
    return lambda storage, compute_map: bind(storage)


class GraphCLinker:
    """Compile the whole graph into one module; nodes without C split it into regions."""

    name = "c"

    def make_runner(self, fgraph):
        if not compiler_available():
            return shipped_runner(fgraph)
        steps = partition(fgraph)
        if len(steps) == 1 and isinstance(steps[0], Region):
            region = steps[0]
            region.inputs = list(fgraph.inputs)
            region.outputs = list(fgraph.outputs)
            region.keep_outputs = True  # the function's results: reused when the caller drops them
            runner = _region_runner(region, f"graph of {len(region.nodes)} node(s)")
            self.single_region = region  # op.compute rebinds a params op's runner from its module
            return runner
        return self._regions_runner(fgraph, steps)

    def make_runner_with_shared(self, fgraph, plan, n_inputs):
        """Return a runner whose module reads the shared variables and stores the updates itself.

        `fgraph`'s inputs are `n_inputs` explicit ones then `plan.placeholders`; its
        outputs are the returned ones then the updates. Only a graph that is one C
        region gets such a module; otherwise return None (updates then go through Python).
        """
        if not _compiler_or_fallback():
            return python_update_runner(PyLinker().make_runner(fgraph), plan, len(fgraph.outputs))
        steps = partition(fgraph)
        if not (len(steps) == 1 and isinstance(steps[0], Region)):
            return None
        region, returned = steps[0], len(plan.outputs)
        region.inputs = list(fgraph.inputs[:n_inputs])
        region.shared = list(fgraph.inputs[n_inputs:])
        region.outputs = list(fgraph.outputs[:returned])
        region.updates = list(zip(plan.updates, fgraph.outputs[returned:]))
        region.keep_outputs = True  # the returned outputs (not the updates): reused when the caller drops them
        return _region_runner(region, f"graph of {len(region.nodes)} node(s)", plan.cells())

    def _regions_runner(self, fgraph, steps):
        binders, labels = [], []
        built = _compile_regions([step for step in steps if isinstance(step, Region)])
        for step in steps:
            if isinstance(step, Region):
                built[id(step)]()  # its module, compiled beside the others (raises what its compile raised)
                bind = region_binder(step, _region_runner(step, f"region of {len(step.nodes)} node(s)"))
                binders.append(lambda storage, compute_map, bind=bind: bind(storage))
                labels.append(step.nodes[0] if len(step.nodes) == 1 else f"C region {step.nodes}")
            else:
                binders.append(_python_binder(step))
                labels.append(step)
        return sequential_runner(fgraph, lambda storage, compute_map: [b(storage, compute_map) for b in binders],
                                 labels)


def _compile_regions(regions):
    """Compile the modules of several regions at once (one compiler per core); return each one's waiter.

    A graph split by nodes without C code has a module per region: built one after
    another, a cold graph waits for each in turn. The waiter of a region returns
    once its module is in this process's cache (what make_region_runner then finds),
    or raises what compiling it raised.
    """
    from opkit.config import usable_cores
    from opkit.cop.compile import compile_region

    cores = usable_cores()
    if len(regions) < 2 or cores < 2:
        return {id(region): (lambda: None) for region in regions}
    import concurrent.futures

    pool = concurrent.futures.ThreadPoolExecutor(min(cores, len(regions)))
    # The biggest first: the others fill the cores while it builds.
    futures = {id(region): pool.submit(compile_region, region, f"region of {len(region.nodes)} node(s)")
               for region in sorted(regions, key=lambda r: -len(r.nodes))}
    pool.shutdown(wait=False)

    def waiter(future):
        def wait():
            try:
                future.result()
            except BaseException:
                for other in futures.values():  # what has not started yet never will
                    other.cancel()
                raise
        return wait

    return {key: waiter(future) for key, future in futures.items()}


class NodeCLinker(PyLinker):
    """Run each node with C code through its own module; the others through perform."""

    name = "cop"

    def make_runner(self, fgraph):
        if not compiler_available():
            return shipped_runner(fgraph)
        order = fgraph.toposort()
        binders = [_c_binder(node) if op_has_c(node) else _python_binder(node) for node in order]
        return sequential_runner(fgraph, lambda storage, compute_map: [b(storage, compute_map) for b in binders],
                                 order)


def _c_binder(node):
    bind = node_c_runner(node)
    return lambda storage, compute_map: bind(storage)

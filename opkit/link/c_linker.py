"""The C linkers: 'c' (whole graph, one C call) and 'cop' (one module per node)."""

from __future__ import annotations

from opkit.config import usable_cores
from opkit.cop.compile import build_region
from opkit.cop.generate.region import Region
from opkit.link.binders import node_by_node_runner, python_binder, region_binder, region_runner
from opkit.link.partition import partition
from opkit.link.runner import sequential_runner


class GraphCLinker:
    """Compile the whole graph into one module; nodes without C split it into regions."""

    name = "c"

    def make_runner(self, fgraph, backend):
        """Return the runner of `fgraph`; without a compiler (see `backend`) its nodes run one by one."""
        if not backend.compiles:
            return node_by_node_runner(fgraph, backend)
        steps = partition(fgraph, backend.target)
        if len(steps) == 1 and isinstance(steps[0], Region):
            region = steps[0]
            region.inputs = list(fgraph.inputs)
            region.outputs = list(fgraph.outputs)
            runner = region_runner(region, f"graph of {len(region.nodes)} node(s)", backend)
            runner.keep_outputs = True  # the function's results: reused when the caller drops them
            self.single_region = region  # op.compute rebinds a params op's runner from its module
            return runner
        return self._regions_runner(fgraph, steps, backend)

    def make_runner_with_shared(self, fgraph, plan, n_inputs, backend):
        """Return a runner whose module reads the shared variables and stores the updates itself.

        `fgraph`'s inputs are `n_inputs` explicit ones then `plan.placeholders`; its
        outputs are the returned ones then the updates. Only a graph that is one C
        region gets such a module; otherwise (or without a compiler) return None: updates then go
        through Python, over make_runner's runner.
        """
        if not backend.compiles:
            return None
        steps = partition(fgraph, backend.target)
        if not (len(steps) == 1 and isinstance(steps[0], Region)):
            return None
        region, returned = steps[0], len(plan.outputs)
        region.inputs = list(fgraph.inputs[:n_inputs])
        region.shared = list(fgraph.inputs[n_inputs:])
        region.outputs = list(fgraph.outputs[:returned])
        region.updates = list(zip(plan.updates, fgraph.outputs[returned:]))
        runner = region_runner(region, f"graph of {len(region.nodes)} node(s)", backend, plan.cells())
        runner.keep_outputs = True  # the returned outputs (not the updates): reused when the caller drops them
        return runner

    def _regions_runner(self, fgraph, steps, backend):
        binders, labels = [], []
        built = _build_regions([step for step in steps if isinstance(step, Region)])
        for step in steps:
            if isinstance(step, Region):
                built[id(step)]()  # its module, compiled beside the others (raises what its compile raised)
                bind = region_binder(step, region_runner(step, f"region of {len(step.nodes)} node(s)", backend))
                binders.append(lambda storage, compute_map, bind=bind: bind(storage))
                labels.append(step.nodes[0] if len(step.nodes) == 1 else f"C region {step.nodes}")
            else:
                binders.append(python_binder(step, backend))
                labels.append(step)
        return sequential_runner(fgraph, lambda storage, compute_map: [b(storage, compute_map) for b in binders],
                                 labels)


def _build_regions(regions):
    """Build the modules of several regions at once (one compiler per core); return each one's waiter.

    A graph split by nodes without C code has a module per region: built one after
    another, a cold graph waits for each in turn. The waiter of a region returns
    once its module is in this process's cache (what make_region_runner then finds),
    or raises what compiling it raised.
    """
    cores = usable_cores()
    if len(regions) < 2 or cores < 2:
        return {id(region): (lambda: None) for region in regions}
    import concurrent.futures
    import contextvars

    pool = concurrent.futures.ThreadPoolExecutor(min(cores, len(regions)))
    # The biggest first: the others fill the cores while it builds. Each compiles in a copy of this thread's
    # context: what it reads of the function being made (the device, opkit.gpu.device) is the caller's.
    futures = {id(region): pool.submit(contextvars.copy_context().run, build_region, region,
                                       f"region of {len(region.nodes)} node(s)")
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


class NodeCLinker:
    """Run each node with C code through its own module; the others through perform."""

    name = "cop"

    def make_runner(self, fgraph, backend):
        return node_by_node_runner(fgraph, backend)

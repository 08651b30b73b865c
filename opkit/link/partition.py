"""Cut a graph into C regions (runs of nodes with C code that may share one module) and the Python nodes between them."""

from __future__ import annotations

from opkit.cop.toolchain.flags import BASE_COMPILE_ARGS, build_flags
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.flag_clash import ModuleFlags
from opkit.cop.generate.region import Region


def partition(fgraph, target):
    """Split fgraph's nodes into steps: a Region of consecutive C nodes, or one Python node.

    Each region is generated for `target` (the device the function's backend carries; None for CPU graphs).

    Nodes whose compiler flags clash (opkit.cop.generate.flag_clash: ``-DJ=1`` beside ``-DJ=2``)
    are never in one region; where the graph destroys no input, the nodes are reordered so that
    those that may share a module meet in one region (a module per set of flags, not per node).
    """
    order = fgraph.toposort()
    c_ids = {id(node) for node in order if op_has_c(node)}
    flags = ModuleFlags([node for node in order if id(node) in c_ids], (*BASE_COMPILE_ARGS, *build_flags()[0]), target)
    data_order_is_free = not any(getattr(node.op, "destroy_map", None) for node in order)
    if data_order_is_free and (flags.possible or _gpu_graph(order)):
        order = _reordered(order, c_ids, flags, batch_python=_gpu_graph(order))
    users = {}
    for node in order:
        for variable in node.inputs:
            users.setdefault(id(variable), []).append(node)
    graph_outputs = set(map(id, fgraph.outputs))
    steps, run = [], flags.run()

    def close_run():
        if run.nodes:
            members = set(map(id, run.nodes))

            def needed_outside(variable):
                return id(variable) in graph_outputs or any(
                    id(user) not in members for user in users.get(id(variable), ()))

            steps.append(Region.from_nodes(run.nodes, needed_outside, flags.asked, target))
            run.clear()

    for node in order:
        if id(node) in c_ids:
            if not run.admits(node):
                close_run()
            run.add(node)
        else:
            close_run()
            steps.append(node)
    close_run()
    return steps


def _gpu_graph(nodes) -> bool:
    """True for a graph placed on a GPU device (a transfer's Python node sits between every two GPU ops of the
    toposort)."""
    return any(hasattr(variable.type, "host_type") for node in nodes for variable in node.outputs)


def _reordered(nodes, c_ids, flags, batch_python):
    """Return `nodes` in another order that computes them, so that C nodes meet in few regions.

    A ready C node that may join the current run of C nodes (`flags`) comes first. Otherwise, with
    `batch_python` (a GPU graph, whose transfers are Python nodes), any ready C node, and the Python
    nodes only when no C node can run, all those ready then at once; without it, the first ready node
    of the toposort.
    """
    import heapq

    position = {id(node): k for k, node in enumerate(nodes)}
    producer = {id(variable): node for node in nodes for variable in node.outputs}
    users, waiting = {}, {}
    for node in nodes:
        needs = {id(producer[id(v)]) for v in node.inputs if id(v) in producer}
        waiting[id(node)] = len(needs)
        for need in needs:
            users.setdefault(need, []).append(node)
    ready_c, ready_python, order, run = [], [], [], flags.run()

    def make_ready(node):
        heapq.heappush(ready_c if id(node) in c_ids else ready_python, (position[id(node)], id(node), node))

    def schedule(node):
        order.append(node)
        for user in users.get(id(node), ()):
            waiting[id(user)] -= 1
            if not waiting[id(user)]:
                make_ready(user)

    for node in nodes:
        if not waiting[id(node)]:
            make_ready(node)
    while ready_c or ready_python:
        joining = _first_joining(ready_c, run)
        if joining is not None:
            run.add(joining)
            schedule(joining)
        elif ready_c and (batch_python or not ready_python or ready_c[0] < ready_python[0]):
            node = heapq.heappop(ready_c)[2]
            run.clear()
            run.add(node)
            schedule(node)
        elif batch_python:
            run.clear()
            for node in [heapq.heappop(ready_python)[2] for _ in range(len(ready_python))]:
                schedule(node)
        else:
            run.clear()
            schedule(heapq.heappop(ready_python)[2])
    assert len(order) == len(nodes), "the graph has a cycle"
    return order


def _first_joining(ready_c, run):
    """Pop and return the first ready C node that may join `run` (None if there is no run or none may)."""
    import heapq

    if not run.nodes or not ready_c:
        return None
    if not run.checks:
        return heapq.heappop(ready_c)[2]
    for entry in sorted(ready_c):
        if run.admits(entry[2]):
            ready_c.remove(entry)
            heapq.heapify(ready_c)
            return entry[2]
    return None

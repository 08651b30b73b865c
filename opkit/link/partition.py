"""Cut a graph into C regions (runs of nodes with C code) and the Python nodes between them."""

from __future__ import annotations

from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.region import Region


def partition(fgraph):
    """Split fgraph's nodes into steps: a Region of consecutive C nodes, or one Python node."""
    order = fgraph.toposort()
    if _gpu_graph(order):
        order = _python_nodes_in_batches(order)
    users = {}
    for node in order:
        for variable in node.inputs:
            users.setdefault(id(variable), []).append(node)
    graph_outputs = set(map(id, fgraph.outputs))
    steps, run = [], []

    def close_run():
        if run:
            members = set(map(id, run))

            def needed_outside(variable):
                return id(variable) in graph_outputs or any(
                    id(user) not in members for user in users.get(id(variable), ()))

            steps.append(Region.from_nodes(run, needed_outside))
            run.clear()

    for node in order:
        if op_has_c(node):
            run.append(node)
        else:
            close_run()
            steps.append(node)
    close_run()
    return steps


def _gpu_graph(nodes) -> bool:
    """True for a graph placed on a GPU device (a transfer's Python node sits between every two GPU ops of the
    toposort) that destroys no input (the order below follows data alone)."""
    gpu = any(hasattr(variable.type, "host_type") for node in nodes for variable in node.outputs)
    return gpu and not any(getattr(node.op, "destroy_map", None) for node in nodes)


def _python_nodes_in_batches(nodes):
    """Return `nodes` in another order that computes them: C nodes as soon as their inputs are there, and the
    Python nodes (transfers, perform-only ops) only when no C node can run, all those ready then at once; so
    the C nodes meet in few regions, a module each, not one region per GPU op."""
    import heapq

    position = {id(node): k for k, node in enumerate(nodes)}
    producer = {id(variable): node for node in nodes for variable in node.outputs}
    users, waiting = {}, {}
    for node in nodes:
        needs = {id(producer[id(v)]) for v in node.inputs if id(v) in producer}
        waiting[id(node)] = len(needs)
        for need in needs:
            users.setdefault(need, []).append(node)
    ready_c, ready_python, order = [], [], []

    def schedule(node):
        order.append(node)
        for user in users.get(id(node), ()):
            waiting[id(user)] -= 1
            if not waiting[id(user)]:
                heapq.heappush(ready_c if op_has_c(user) else ready_python, (position[id(user)], id(user), user))

    for node in nodes:
        if not waiting[id(node)]:
            heapq.heappush(ready_c if op_has_c(node) else ready_python, (position[id(node)], id(node), node))
    while ready_c or ready_python:
        if ready_c:
            schedule(heapq.heappop(ready_c)[2])
            continue
        batch = [heapq.heappop(ready_python)[2] for _ in range(len(ready_python))]
        for node in batch:
            schedule(node)
    assert len(order) == len(nodes), "the graph has a cycle"
    return order

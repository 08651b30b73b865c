"""The C linkers: 'c' (whole graph, one C call) and 'cop' (one module per node)."""

from __future__ import annotations

import warnings

from opkit.config import config
from opkit.core.graph import Constant
from opkit.link.py_linker import PyLinker, python_thunk
from opkit.link.runner import make_storage, sequential_runner
from opkit.cop.cinterface import op_has_c
from opkit.cop.compile import make_region_runner
from opkit.cop.region import Region
from opkit.link.partition import partition
from opkit.errors import CompileError


def node_c_thunk(node, storage, compute_map=None):
    """Return a thunk running `node` through its own compiled module."""
    if not op_has_c(node):
        op = node.op
        raise NotImplementedError(
            f"{op} ({type(op).__module__}.{type(op).__qualname__}) has neither perform() nor C code for {node}.\n"
            "Hint: define perform(node, inputs, output_storage) or c_code(node, name, inputs, outputs, sub), "
            "and check that every input and output type has a C interface.")
    region = Region.from_nodes([node], lambda variable: True)
    runner = make_region_runner(region, f"node {node}")
    return region_thunk(region, runner, storage)


def region_thunk(region, runner, storage):
    """Return a thunk feeding `region`'s inputs from storage and storing its outputs."""
    inputs = [storage[v] for v in region.inputs]
    outputs = [storage[v] for v in region.outputs]
    if len(outputs) == 1:
        cell = outputs[0]

        def thunk():
            cell[0] = runner(*[c[0] for c in inputs])
    else:
        def thunk():
            for out, value in zip(outputs, runner(*[c[0] for c in inputs])):
                out[0] = value
    return thunk


def _compiler_or_fallback():
    """Return True if C can be compiled; with python_fallback, warn and return False instead."""
    from opkit.cop.compiler import find_compiler

    try:
        find_compiler()
        return True
    except CompileError:
        if not config.python_fallback:
            raise
        warnings.warn("no C++ compiler: running Python perform() (OPKIT_FLAGS=python_fallback=true); "
                      "run `opkit doctor` to fix the toolchain", RuntimeWarning, stacklevel=4)
        return False


class GraphCLinker:
    """Compile the whole graph into one module; nodes without C split it into regions."""

    name = "c"

    def make_runner(self, fgraph):
        if not _compiler_or_fallback():
            return PyLinker().make_runner(fgraph)
        steps = partition(fgraph)
        if len(steps) == 1 and isinstance(steps[0], Region):
            region = steps[0]
            region.inputs = list(fgraph.inputs)
            region.outputs = list(fgraph.outputs)
            return make_region_runner(region, f"graph of {len(region.nodes)} node(s)")
        storage = make_storage(fgraph)
        compute_map = {v: [isinstance(v, Constant)] for v in storage}
        thunks, labels = [], []
        for step in steps:
            if isinstance(step, Region):
                runner = make_region_runner(step, f"region of {len(step.nodes)} node(s)")
                thunks.append(region_thunk(step, runner, storage))
                labels.append(step.nodes[0] if len(step.nodes) == 1 else f"C region {step.nodes}")
            else:
                thunks.append(python_thunk(step, storage, compute_map) or PyLinker().fallback_thunk(
                    step, storage, compute_map))
                labels.append(step)
        return sequential_runner(fgraph, storage, thunks, labels)


class NodeCLinker(PyLinker):
    """Run each node with C code through its own module; the others through perform."""

    name = "cop"

    def make_runner(self, fgraph):
        if not _compiler_or_fallback():
            return PyLinker().make_runner(fgraph)
        storage = make_storage(fgraph)
        compute_map = {v: [isinstance(v, Constant)] for v in storage}
        thunks = []
        for node in fgraph.toposort():
            if op_has_c(node):
                thunks.append(node_c_thunk(node, storage, compute_map))
            else:
                thunks.append(python_thunk(node, storage, compute_map) or self.fallback_thunk(
                    node, storage, compute_map))
        return sequential_runner(fgraph, storage, thunks)

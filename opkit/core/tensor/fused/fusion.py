"""Elementwise fusion: a tree of Elemwise nodes becomes one node and one C loop.

A fused node runs a *program*: steps (scalar_op, refs, out_dtype) where a ref
below the number of inputs names an input and the others earlier steps. Each
step casts its operands to its own dtype, exactly as the unfused nodes (and
numpy) would, so fusing never changes a result.
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply
from opkit.core.tensor.elementwise.elemwise import Elemwise, broadcast_shape
from opkit.core.tensor.scalars.scalar_ops import program_operand_dtypes
from opkit.core.tensor.types.type import TensorType


class DerivedFromExpansion:
    """Gradients of a fused op: those of the graph it stands for (``self.expand(inputs)``, one output); the rules
    are the gradient layer's (gradients/fused_grad.py)."""

    grad = registered("grad")
    R_op = registered("R_op")


class FusedElemwise(DerivedFromExpansion, Elemwise):
    """Several elementwise operations computed in one pass over the output."""

    __props__ = ("program", "n_inputs")

    def __init__(self, program, n_inputs):
        self.program = tuple(program)
        self.n_inputs = int(n_inputs)

    @property
    def scalar_op(self):
        return self.program[-1][0]

    def make_node(self, *inputs):
        if len(inputs) != self.n_inputs:
            raise TypeError(f"{self} takes {self.n_inputs} inputs, got {len(inputs)}")
        shape = broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")
        return Apply(self, list(inputs), [TensorType(self.program[-1][2], shape)()])

    def _steps(self, node):
        return self.program

    def _scalar_ops(self):
        return tuple(step[0] for step in self.program)

    def perform(self, node, inputs, output_storage):
        broadcast_shape([np.shape(i) for i in inputs], f"the inputs of {self}")
        values = list(inputs)
        operand_dtypes = program_operand_dtypes(self.program, [v.dtype for v in node.inputs])
        with np.errstate(all="ignore"):
            for (scalar_op, refs, out_dtype), loop in zip(self.program, operand_dtypes):
                operands = [np.asarray(values[r]).astype(d, copy=False) for r, d in zip(refs, loop)]
                values.append(np.asarray(scalar_op.ufunc(*operands), dtype=out_dtype))
        output_storage[0][0] = np.asarray(values[-1], dtype=node.outputs[0].dtype)

    def expand(self, inputs):
        """Rebuild the unfused graph of Elemwise nodes on `inputs`; return its output."""
        values = list(inputs)
        for scalar_op, refs, _ in self.program:
            values.append(Elemwise(scalar_op)(*[values[r] for r in refs]))
        return values[-1]


    def __str__(self):
        return "Fused{" + ",".join(str(step[0]) for step in self.program) + "}"


# The most steps a shared 0-d node may bring into each loop that computes it again (see _inlined): a
# chain of scalars each used twice is not copied whole into every loop.
MAX_CONE = 8


def fuse_elementwise(fgraph):
    """Replace each maximal tree of single-client Elemwise nodes with one FusedElemwise.

    A 0-d tree also takes in the small 0-d nodes whose other clients are 0-d loops too (_inlined): each
    loop computes them again (a few scalar operations), and the node itself goes. The scalar parts of a
    log-density and its gradient (exp(log_sigma) used by many terms) then become a few loops.
    """
    clients = fgraph.clients()
    outputs = set(map(id, fgraph.outputs))
    inlined = _inlined(fgraph, clients, outputs)
    fused = set()
    groups = []
    for root in reversed(fgraph.toposort()):
        if id(root) in fused or not _fusable(root):
            continue
        members = _grow(root, clients, outputs, inlined)
        if len(members) < 2:
            continue
        fused.update(id(m) for m in members if id(m) not in inlined)
        groups.append((root, members))
    # Build bottom-up: a tree fed by another fused tree reads that tree's new output
    # (replace_all only rewires the nodes already in the graph, not these new ones).
    mapping = {}
    for root, members in reversed(groups):
        inputs, program = _program(root, members)
        inputs = [mapping.get(v, v) for v in inputs]
        mapping[root.outputs[0]] = FusedElemwise(program, len(inputs))(*inputs)
    fgraph.replace_all(list(mapping.items()), "fusion")


def _fusable(node):
    return isinstance(node.op, Elemwise) and not isinstance(node.op, FusedElemwise) and node.op.fusable(node)


def _grow(root, clients, outputs, inlined=frozenset()):
    """Return the nodes feeding `root`, reachable through Elemwise outputs used once.

    Where root is 0-d, also through the nodes of `inlined` (see _inlined), which each loop using them
    computes again. Nodes with C code and nodes without (float16, complex: see scalar_ops) are not
    fused together, so a fused loop never drags C-able work into perform.
    """
    members, stack = {id(root): root}, [root]
    root_has_c = root.op.has_c_code(root)
    scalar = root.outputs[0].ndim == 0
    while stack:
        node = stack.pop()
        for variable in node.inputs:
            owner = variable.owner
            if owner is None or id(owner) in members or not _fusable(owner):
                continue
            if owner.op.has_c_code(owner) != root_has_c:
                continue
            users = clients.get(variable, [])
            single = id(variable) not in outputs and len(users) == 1 and users[0][0] is node
            if not single and not (scalar and id(owner) in inlined):
                continue
            members[id(owner)] = owner
            stack.append(owner)
    return list(members.values())


def _inlined(fgraph, clients, outputs):
    """Return the ids of the 0-d nodes each 0-d loop using them computes again, so that the node goes.

    Such a node has one output, no graph output, only 0-d elementwise clients of its kind (C or not),
    and brings at most MAX_CONE steps (itself, the nodes only it uses, the inlined nodes it uses) into
    each loop: a copy costs a few scalar operations, never a whole chain.
    """
    cone, inlined = {}, set()
    for node in fgraph.toposort():
        if not _fusable(node) or len(node.outputs) != 1 or node.outputs[0].ndim != 0:
            continue
        has_c = node.op.has_c_code(node)
        size = 1
        for variable in node.inputs:
            owner = variable.owner
            if owner is None or id(owner) not in cone or cone[id(owner)][1] != has_c:
                continue
            if id(owner) in inlined or (len(clients.get(variable, [])) == 1 and id(variable) not in outputs):
                size += cone[id(owner)][0]
        cone[id(node)] = (size, has_c)
        users = clients.get(node.outputs[0], [])
        if size <= MAX_CONE and id(node.outputs[0]) not in outputs and len(users) > 1 and all(
                not isinstance(client, str) and _fusable(client) and client.outputs[0].ndim == 0
                and client.op.has_c_code(client) == has_c for client, _ in users):
            inlined.add(id(node))
    return inlined


def _program(root, members):
    """Return (inputs, program) computing root's output from the members' external inputs."""
    member_ids = set(map(id, members))
    inputs, input_index, steps, step_index = [], {}, [], {}

    def ref(variable):
        if variable.owner is not None and id(variable.owner) in member_ids:
            return ("step", visit(variable.owner))
        if id(variable) not in input_index:
            input_index[id(variable)] = len(inputs)
            inputs.append(variable)
        return ("input", input_index[id(variable)])

    def visit(node):
        if id(node) not in step_index:
            refs = [ref(v) for v in node.inputs]
            steps.append((node.op.scalar_op, refs, node.outputs[0].dtype))
            step_index[id(node)] = len(steps) - 1
        return step_index[id(node)]

    visit(root)
    n = len(inputs)
    program = [(op, tuple(k if kind == "input" else n + k for kind, k in refs), dtype)
               for op, refs, dtype in steps]
    return inputs, program

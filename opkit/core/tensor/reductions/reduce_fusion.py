"""Reductions fused with their elementwise input: `sum(x * y)` is one loop with no temporary.

FusedReduce computes an elementwise program (as FusedElemwise does) and
reduces its values as they are produced; `fuse_reductions`, a FAST_RUN
rewrite run after the elementwise fusion, merges an Elemwise or
FusedElemwise node used only by a reduction into the reduction.
"""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Apply
from opkit.core.tensor.elementwise.elemwise import Elemwise, broadcast_shape
from opkit.core.tensor.fused.fusion import DerivedFromExpansion, FusedElemwise, _fusable
from opkit.core.tensor.scalars.user_scalar import is_user_scalar_op
from opkit.core.tensor.reductions.reduction import (Max, Mean, Min, Prod, Reduce, Sum, numpy_reduction, reduced_shape,
                                         result_dtype)
from opkit.core.tensor.types.shape_checks import check_chain
from opkit.core.tensor.types.type import TensorType

_REDUCTIONS = {"sum": Sum, "prod": Prod, "max": Max, "min": Min, "mean": Mean}


class FusedReduce(DerivedFromExpansion, Reduce):
    """A reduction `kind` over `axis` of an elementwise `program` of `n_inputs` broadcast inputs."""

    __props__ = ("kind", "axis", "keepdims", "program", "n_inputs")

    def __init__(self, kind, axis, keepdims, program, n_inputs):
        super().__init__(axis, keepdims, kind=kind)
        self.program = tuple(program)
        self.n_inputs = int(n_inputs)

    def _elementwise(self):
        return FusedElemwise(self.program, self.n_inputs)

    def make_node(self, *inputs):
        if len(inputs) != self.n_inputs:
            raise TypeError(f"{self} takes {self.n_inputs} inputs, got {len(inputs)}")
        shape = broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")
        out_shape = reduced_shape(shape, self._axes(len(shape)), self.keepdims)
        return Apply(self, list(inputs), [TensorType(result_dtype(self.kind, self.program[-1][2]), out_shape)()])

    def reduce_program(self, node):
        return self.program, self.n_inputs

    def perform(self, node, inputs, output_storage):
        values = [None]
        elementwise = self._elementwise()
        elementwise.perform(elementwise.make_node(*node.inputs), inputs, [values])
        result = numpy_reduction(self.kind, values[0], self._axes(values[0].ndim), self.keepdims)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        elementwise = self._elementwise()
        shape, = Elemwise.infer_shape(elementwise, elementwise.make_node(*node.inputs), input_shapes)
        return [reduced_shape(shape, self._axes(len(shape)), self.keepdims)]

    def shape_checks(self, node, input_shapes):
        elementwise = self._elementwise()
        enode = elementwise.make_node(*node.inputs)
        shape, = Elemwise.infer_shape(elementwise, enode, input_shapes)
        return [*Elemwise.shape_checks(elementwise, enode, input_shapes), check_chain(self._empty_checks(shape))]

    def expand(self, inputs):
        """Rebuild the unfused graph (elementwise nodes, then the reduction) on `inputs`; return its output."""
        return _REDUCTIONS[self.kind](self.axis, self.keepdims)(self._elementwise().expand(inputs))

    def L_op(self, inputs, outputs, output_grads):
        return self.grad(inputs, output_grads)

    def __str__(self):
        steps = ",".join(str(step[0]) for step in self.program)
        return f"Fused{self.kind.capitalize()}{{{steps}; axis={self.axis}, keepdims={self.keepdims}}}"


def fuse_reductions(fgraph):
    """Merge each Elemwise/FusedElemwise node used only by a reduction into that reduction.

    Only where the fused node has C code: a fused loop never drags C-able work into perform.
    """
    clients = fgraph.clients()
    outputs = set(map(id, fgraph.outputs))
    pairs = []
    for node in fgraph.toposort():
        if type(node.op) not in _REDUCTIONS.values() and type(node.op) is not Reduce:
            continue
        value = node.inputs[0]
        producer = value.owner
        if producer is None or id(value) in outputs:
            continue
        if not (isinstance(producer.op, FusedElemwise) or _fusable(producer)):
            continue
        users = clients.get(value, [])
        if len(users) != 1 or users[0][0] is not node:
            continue
        program = tuple(producer.op._steps(producer))
        if any(is_user_scalar_op(step[0]) for step in program):
            continue  # a user scalar op's support code and flags come with Elemwise nodes only (user_scalar)
        fused_op = FusedReduce(node.op.kind, node.op.axis, node.op.keepdims, program,
                               len(producer.inputs))
        fused = fused_op.make_node(*producer.inputs)
        if fused.outputs[0].type != node.outputs[0].type or not fused_op.has_c_code(fused):
            continue
        fused.outputs[0].name = node.outputs[0].name
        pairs.append((node.outputs[0], fused.outputs[0]))
    fgraph.replace_all(pairs, "reduce_fusion")

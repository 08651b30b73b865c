"""Output shapes of an opkit op on torch's sizes (ints or SymInts): its infer_shape graph, evaluated in Python.

``infer_shape(node, input_shapes)`` gets ``Shape_i(i)(x)`` for each dimension
of each input, as opkit's shape inference gives them, and returns numbers or
opkit variables. Those variables are evaluated here on the tensors' sizes:
``Shape_i`` of an input, constants, casts and integer arithmetic (add, sub,
mul, neg, maximum, minimum), so torch.compile's symbolic sizes pass through
unchanged; any other op of integer scalars (broadcasting, shape checks) runs its
``perform`` on the sizes, which specializes them. A shape that reads an input's values, or an op without a usable
infer_shape, raises `ShapeNotKnown`, naming the op.
"""

from __future__ import annotations

import operator

import numpy as np
import torch

from opkit.core.builtin_ops import Shape_i
from opkit.core.graph import Constant, Variable
from opkit.core.tensor.shapes.alloc import Cast

_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "neg": operator.neg,
               "maximum": torch.sym_max, "minimum": torch.sym_min}


def _runs_on_scalars(node):
    """Whether `node` maps integer scalars to one integer scalar and can run in Python."""
    variables = [*node.inputs, *node.outputs]
    return (len(node.outputs) == 1 and node.op.has_perform()
            and all(getattr(v.type, "ndim", None) == 0 and np.dtype(v.type.dtype).kind in "iub" for v in variables))


class ShapeNotKnown(NotImplementedError):
    """The output shape of an op cannot be computed from its inputs' shapes (torch.compile needs it)."""


def symbolic_shapes(op, node, where):
    """Return infer_shape's output shapes of `node` (numbers or opkit variables), or raise ShapeNotKnown."""
    method = getattr(op, "infer_shape", None)
    if method is None:
        raise ShapeNotKnown(f"{where} has no infer_shape, so its output shape is not known without running it; "
                            "torch.compile (and the op's fake implementation) need it: define "
                            "infer_shape(node, input_shapes) on the op")
    input_shapes = [tuple(Shape_i(i)(v) for i in range(v.type.ndim)) for v in node.inputs]
    try:
        shapes = method(node, input_shapes)
    except NotImplementedError as exc:
        raise ShapeNotKnown(f"the output shape of {where} is not known from its input shapes (its infer_shape "
                            f"raised NotImplementedError: {exc}); torch.compile needs it") from exc
    shapes = [None if shape is None else tuple(shape) for shape in shapes]
    for i, (shape, out) in enumerate(zip(shapes, node.outputs)):
        if shape is None or len(shape) != out.type.ndim:
            raise ShapeNotKnown(f"the infer_shape of {where} gives {shape} for output {i}, which has "
                                f"{out.type.ndim} dimensions")
    return shapes


def evaluate_shape(shape, node, sizes, where):
    """Return `shape` (from symbolic_shapes) as a tuple of ints or SymInts; `sizes` are the inputs' shapes."""
    return tuple(_evaluate(d, node, sizes, where, {}) for d in shape)


def _evaluate(dim, node, sizes, where, done):
    if not isinstance(dim, Variable):
        return int(dim)
    if dim in done:
        return done[dim]
    owner = dim.owner
    if isinstance(dim, Constant):
        value = int(np.asarray(dim.data))
    elif owner is None:
        if any(dim is v for v in node.inputs):
            raise ShapeNotKnown(f"the output shape of {where} depends on the values of its input {dim}, not only "
                                "on input shapes: torch.compile cannot know it before running the op")
        raise ShapeNotKnown(f"the infer_shape of {where} uses {dim}, which is neither an input shape nor a constant")
    elif isinstance(owner.op, Shape_i) and any(owner.inputs[0] is v for v in node.inputs):
        index = next(k for k, v in enumerate(node.inputs) if owner.inputs[0] is v)
        value = sizes[index][owner.op.i]
    else:
        name = getattr(getattr(owner.op, "scalar_op", None), "name", None)
        operands = [_evaluate(i, node, sizes, where, done) for i in owner.inputs]
        if name in _ARITHMETIC:
            value = _ARITHMETIC[name](*operands)
        elif isinstance(owner.op, Cast):
            value = operands[0]
        elif _runs_on_scalars(owner):
            # Any other op of integer scalars (BroadcastAxis, the shape checks' Assert and Depend, ...): its own
            # perform on the sizes, as opkit would compute the shape. int() of a SymInt makes torch.compile
            # specialize that size (a guard, recompiled when it changes), which is exact.
            storage = [[None]]
            owner.op.perform(owner, [np.asarray(int(v), dtype=i.dtype) for v, i in zip(operands, owner.inputs)],
                             storage)
            value = int(storage[0][0])
        else:
            raise ShapeNotKnown(f"the infer_shape of {where} computes a dimension with {owner.op}, which the torch "
                                "bridge cannot evaluate on torch's sizes (it evaluates Shape_i, constants, casts, "
                                f"{', '.join(_ARITHMETIC)})")
    done[dim] = value
    return value

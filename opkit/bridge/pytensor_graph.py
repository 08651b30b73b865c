"""Translate an opkit graph (a gradient, an R_op, inferred shapes) into a PyTensor graph.

opkit's tensor ops become PyTensor's own (so PyTensor can rewrite them); any
other opkit op is bridged with `as_pytensor_op`. A variable whose type has no
PyTensor counterpart, or an owner-less variable the caller did not bind,
raises NotImplementedError naming it and what it was for.
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType as PtDisconnectedType
from pytensor.gradient import NullType as PtNullType
from pytensor.graph.basic import Constant as PtConstant
from pytensor.graph.basic import Variable as PtVariable

from opkit.bridge.pytensor_types import TypeNotMapped, to_opkit_type, to_pytensor_type
from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.gradient_types import DisconnectedType, NullType
from opkit.core.graph import Constant, Variable, io_toposort
from opkit.core.tensor.elementwise.basic import Dot
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.reductions.reduction import Sum
from opkit.core.tensor.shapes.alloc import Alloc, Cast, DimShuffle
from opkit.core.tensor.shapes.shape_ops import MakeVector
from opkit.core.tensor.shapes.subtensor import Subtensor
from opkit.core.tensor.types.type import TensorType

_ELEMWISE = {
    "add": pt.add, "sub": pt.sub, "mul": pt.mul, "true_div": pt.true_div, "neg": pt.neg,
    "exp": pt.exp, "log": pt.log, "sqr": pt.sqr, "sqrt": pt.sqrt, "maximum": pt.maximum, "pow": pt.pow,
}


def _elemwise(op, inputs):
    native = _ELEMWISE.get(getattr(op.scalar_op, "name", None))
    return None if native is None or type(op) is not Elemwise else native(*inputs)


def _subtensor(op, inputs):
    """x[index] in PyTensor: the same integers and slices, their values PyTensor scalars."""
    x, *values = inputs
    values = iter(values)
    index = []
    for entry in op.idx_list:
        if entry == "int":
            index.append(next(values))
        else:
            index.append(slice(*[next(values) if given else None for given in entry[1:]]))
    return x[tuple(index)]


_NATIVE = {
    Elemwise: _elemwise,
    Sum: lambda op, inputs: pt.sum(inputs[0], axis=op.axis, keepdims=op.keepdims),
    Dot: lambda op, inputs: pt.dot(*inputs),
    Cast: lambda op, inputs: pt.cast(inputs[0], op.dtype),
    DimShuffle: lambda op, inputs: inputs[0].dimshuffle(*op.new_order),
    Alloc: lambda op, inputs: pt.alloc(*inputs),
    Shape: lambda op, inputs: pt.shape(inputs[0]),
    Shape_i: lambda op, inputs: pt.shape(inputs[0])[op.i],
    Subtensor: _subtensor,
    MakeVector: lambda op, inputs: pt.stack([pt.cast(i, "int64") for i in inputs]) if inputs
    else pt.constant(np.zeros(0, dtype="int64")),
}


def mirror_variable(variable: PtVariable, where: str) -> Variable:
    """Return an opkit variable standing for a PyTensor one, of the opkit type's own classes.

    A Constant keeps its data as the type's constant (a TensorConstant for a tensor: operators,
    dtype, ndim, as the op's make_node and grad expect); shared variables, random variables and
    any other PyTensor variable become variables of the type (a TensorVariable for a tensor).
    """
    opkit_type = to_opkit_type(variable.type, where)
    if isinstance(variable, PtConstant):
        return opkit_type.make_constant(variable.data, name=variable.name)
    return opkit_type(name=variable.name)


def to_pytensor_graph(outputs, givens, where):
    """Return PyTensor variables computing the opkit `outputs`, given PyTensor values for some opkit variables.

    `givens` pairs opkit variables with the PyTensor variables they stand for;
    `where` names the graph in errors ("the grad of VectorTimesVector").
    """
    memo = {id(k): v for k, v in givens}
    keep = [k for k, _ in givens]  # hold the keys, so their ids stay theirs while memo lives
    for node in io_toposort(list(keep), [o for o in outputs if o is not None]):
        pt_inputs = [_leaf(v, memo, keep, where) for v in node.inputs]
        results = _apply(node, pt_inputs, where)
        for variable, result in zip(node.outputs, results):
            memo[id(variable)] = result
            keep.append(variable)
    return [None if o is None else _leaf(o, memo, keep, where) for o in outputs]


def _leaf(variable, memo, keep, where):
    """Return the PyTensor variable of an opkit variable already translated, or of a leaf."""
    found = memo.get(id(variable))
    if found is not None:
        return found
    if isinstance(variable.type, DisconnectedType):
        result = PtDisconnectedType()()
    elif isinstance(variable.type, NullType):
        result = PtNullType(variable.type.why_null)()
    elif isinstance(variable, Constant):
        result = _constant(variable, where)
    elif variable.owner is None:
        raise NotImplementedError(f"{where} uses {variable} (type {variable.type}), a free variable that is "
                                  "not one of the node's inputs, outputs or output gradients; it cannot be "
                                  "given a PyTensor value")
    else:
        raise AssertionError(f"{variable} was not translated before its use")  # io_toposort order
    memo[id(variable)] = result
    keep.append(variable)
    return result


def _constant(variable, where):
    pytensor_type = to_pytensor_type(variable.type, f"{where}, constant {variable}")
    if isinstance(variable.type, TensorType):
        return pt.constant(np.asarray(variable.data, dtype=variable.type.dtype))
    return pytensor_type.make_constant(variable.data)  # the type's constant class (ScalarConstant, ...)


# opkit.bridge.pytensor.as_pytensor_op: that module, the only way here, sets it on import (set_op_bridge), so the
# two do not import each other
_bridge_op = None


def set_op_bridge(as_pytensor_op):
    """Let `_apply` run an opkit op with no native PyTensor counterpart through `as_pytensor_op(op)`."""
    global _bridge_op
    _bridge_op = as_pytensor_op


def _apply(node, pt_inputs, where):
    """Return the PyTensor outputs of one opkit node applied to PyTensor inputs."""
    native = _NATIVE.get(type(node.op))
    results = native(node.op, pt_inputs) if native is not None else None
    if results is None:
        try:
            results = _bridge_op(node.op).make_node(*pt_inputs).outputs
        except TypeNotMapped as exc:
            raise NotImplementedError(f"{where} uses the opkit op {node.op}, which does not map to PyTensor: "
                                      f"{exc}") from exc
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    return [_as_type(r, o, where) for r, o in zip(results, node.outputs)]


def _as_type(result, opkit_output, where):
    """Cast a native PyTensor result to the opkit output's dtype where numpy's and PyTensor's rules differ."""
    dtype = getattr(opkit_output.type, "dtype", None)
    if dtype is not None and getattr(result.type, "dtype", dtype) != dtype:
        result = pt.cast(result, dtype)
    if getattr(result.type, "ndim", None) != getattr(opkit_output.type, "ndim", None):
        raise NotImplementedError(f"{where}: {opkit_output.owner.op} gives {opkit_output.type} in opkit but "
                                  f"{result.type} in PyTensor")
    return result

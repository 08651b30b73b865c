"""A scalar variable as a 0-d tensor and back: PyTensor's TensorFromScalar and ScalarFromTensor.

opkit's arithmetic, logic and comparisons are tensor ops (Elemwise). A scalar variable (ScalarType) takes
part in them as a 0-d tensor: `as_tensor_variable(s)` is `tensor_from_scalar(s)`, and `as_scalar(t)` of a
0-d tensor is `scalar_from_tensor(t)`. The operators of scalar variables (`s + 1`, `~s & t`, `s < 2`)
compute on the 0-d tensors, by numpy's rules (opkit's tensor rules: Python numbers are weak), and give a
scalar variable back when the result is 0-d (a tensor when an operand was an n-d tensor).
C: tensor_from_scalar.c and scalar_from_tensor.c beside this module.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.graph import Apply, Constant, Variable
from opkit.config import config
from opkit.core.scalar_type import SCALAR_TYPES, ScalarType
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def _is_scalar(value):
    return isinstance(value, Variable) and isinstance(value.type, ScalarType)


class TensorFromScalar(SectionOp):
    """The 0-d array of a scalar variable's value (its dtype)."""

    __props__ = ()
    section_files = ("tensor_from_scalar.c",)

    def make_node(self, s):
        if not _is_scalar(s):
            raise TypeError(f"tensor_from_scalar: expected a scalar variable, got {s!r}")
        return Apply(self, [s], [TensorType(s.type.dtype, ())()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0], dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return []  # make_node admits only a scalar or a 0-d tensor: nothing is left to check when it runs

    def grad(self, inputs, output_grads):
        return [_gradient_of(inputs[0], scalar_from_tensor(output_grads[0]))]

    def __str__(self):
        return "TensorFromScalar"


class ScalarFromTensor(SectionOp):
    """The value of a 0-d tensor as a scalar variable (its dtype)."""

    __props__ = ()
    section_files = ("scalar_from_tensor.c",)

    def make_node(self, t):
        t = as_tensor_variable(t)
        if t.ndim != 0:
            raise TypeError(f"scalar_from_tensor: expected a 0-d tensor, got {t} of type {t.type} ({t.ndim}-d)")
        return Apply(self, [t], [SCALAR_TYPES[str(t.dtype)]()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = node.outputs[0].type.filter(inputs[0][()])

    def infer_shape(self, node, input_shapes):
        return [()]

    def shape_checks(self, node, input_shapes):
        return []  # make_node admits only a scalar or a 0-d tensor: nothing is left to check when it runs

    def grad(self, inputs, output_grads):
        return [_gradient_of(inputs[0], tensor_from_scalar(output_grads[0]))]

    def __str__(self):
        return "ScalarFromTensor"


def _gradient_of(x, g):
    """`g` for a float `x`; zeros of config.floatX for an integer or bool one (PyTensor's rule)."""
    if np.dtype(x.type.dtype).kind in "fc":
        return g

    zero = np.zeros((), config.floatX)
    return SCALAR_TYPES[config.floatX].make_constant(zero[()]) if _is_scalar(x) else _tensor_constant(zero)


def _tensor_constant(value):
    return constant(value)


_tensor_from_scalar, _scalar_from_tensor = TensorFromScalar(), ScalarFromTensor()


def tensor_from_scalar(s):
    """Return scalar variable `s` as a 0-d tensor (a constant stays a constant)."""
    if isinstance(s, Constant) and _is_scalar(s):
        return _tensor_constant(np.asarray(s.data, dtype=s.type.dtype))
    return _tensor_from_scalar(s)


def scalar_from_tensor(t):
    """Return 0-d tensor `t` as a scalar variable (a constant stays a constant)."""
    if isinstance(t, Constant) and getattr(t.type, "ndim", None) == 0:
        dtype = str(t.type.dtype)
        return SCALAR_TYPES[dtype].make_constant(SCALAR_TYPES[dtype].filter(np.asarray(t.data)[()]))
    return _scalar_from_tensor(t)


def apply_operator(name, scalar, *other):
    """`scalar <name> other` computed on 0-d tensors: a scalar variable if the result is 0-d, else a tensor."""
    operands = [tensor_from_scalar(o) if _is_scalar(o) else o for o in other]
    result = getattr(tensor_from_scalar(scalar), name)(*operands)
    if isinstance(result, Variable) and isinstance(result.type, TensorType) and result.ndim == 0:
        return scalar_from_tensor(result)
    return result

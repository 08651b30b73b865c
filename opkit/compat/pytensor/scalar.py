"""pytensor.scalar.basic's names for a port's multi-name import: opkit.scalar's, plus ``constant``, ``identity``.

``constant(x, name=None, dtype=None)`` is a 0-d tensor constant (opkit builds a scalar op's
gradient on tensor variables); ``identity`` is a scalar op returning its input.
"""

from opkit.scalar import *  # noqa: F403
from opkit.scalar import UnaryScalarOp, same_out
from opkit.scalar import __all__ as _names
from opkit.tensor import constant as _tensor_constant


def constant(x, name=None, dtype=None):
    """PyTensor's scalar ``constant``: here a 0-d tensor constant of `dtype` (numpy's type of `x` if None)."""
    return _tensor_constant(x, name=name, dtype=dtype)


class Identity(UnaryScalarOp):
    """z = x."""

    def impl(self, x):
        return x

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]};"

    def grad(self, inputs, output_grads):
        return [output_grads[0]]


identity = Identity(same_out, name="identity")

__all__ = [*_names, "constant", "identity", "Identity"]

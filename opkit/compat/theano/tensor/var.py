"""theano.tensor.var: TensorVariable, TensorConstant (opkit's); ``AsTensorError`` is TypeError (what opkit raises)."""

from opkit.compat.theano.tensor.basic import AsTensorError
from opkit.tensor import TensorConstant, TensorVariable

__all__ = ["AsTensorError", "TensorConstant", "TensorVariable"]

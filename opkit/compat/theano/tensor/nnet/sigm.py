"""theano.tensor.nnet.sigm: ``sigmoid`` and ``softplus`` (opkit.tensor's) and ``hard_sigmoid``."""

import opkit.tensor as _ot
from opkit.tensor import sigmoid, softplus


def hard_sigmoid(x):
    """Theano's piecewise-linear sigmoid: clip(0.2 x + 0.5, 0, 1)."""
    return _ot.clip(0.2 * _ot.as_tensor_variable(x) + 0.5, 0, 1)


__all__ = ["hard_sigmoid", "sigmoid", "softplus"]

"""theano.tensor.nnet: ``sigmoid``, ``softplus``, ``softmax``, ``hard_sigmoid`` over opkit's ops.

``softmax(c, axis=-1)`` is exp(c - max) / sum along `axis` (for Theano's matrices, each row);
``hard_sigmoid(x)`` is clip(0.2 x + 0.5, 0, 1), Theano's. Theano's nnet op classes
(``SoftmaxGrad``, ``LogSoftmax``, the convolutions, ``Images2Neibs``, CTC) are its own ops: a
port brings their modules (tests/ported/theano holds nnet.py, abstract_conv.py, neighbours.py).
"""

import opkit.tensor as _ot
from opkit.compat.theano.tensor.nnet import sigm
from opkit.compat.theano.tensor.nnet.sigm import hard_sigmoid, sigmoid, softplus


def softmax(c, axis=-1):
    """Return exp(c) / sum(exp(c)) along `axis`, computed from c - max(c) (no overflow)."""
    c = _ot.as_tensor_variable(c)
    e = _ot.exp(c - _ot.max(c, axis=axis, keepdims=True))
    return e / _ot.sum(e, axis=axis, keepdims=True)


__all__ = ["hard_sigmoid", "sigm", "sigmoid", "softmax", "softplus"]

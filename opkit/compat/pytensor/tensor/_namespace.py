"""pytensor.tensor's own namespace: opkit.tensor's names and those PyTensor spells otherwise or has besides
(``join``, ``flip``, ``pad``, ``Blockwise``, numpy's constants...). The package opkit.compat.pytensor.tensor and
its submodules (``basic``, ``math``, ``type``, ``variable``) star-import it: it imports none of them."""

from opkit.core.op import Op
from opkit.tensor import *  # noqa: F403
from opkit.tensor import __all__ as _names
from opkit.tensor import as_tensor_variable, concatenate, zeros


def join(axis, *tensors):
    """PyTensor's join: concatenate along `axis`."""
    return concatenate(list(tensors), axis=axis)


def flip(x, axis=None):
    """Reverse `x` along `axis` (an int, a sequence of ints, or None for every axis)."""
    x = as_tensor_variable(x)
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    axes = {a % x.ndim for a in axes}
    return x[tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))]


def pad(x, pad_width, mode="constant", **kwargs):
    raise NotImplementedError("pytensor.tensor.pad: opkit has no Pad op")


class Blockwise:
    """PyTensor's Blockwise, without batching: the core op on inputs of its own ranks."""

    def __init__(self, core_op, signature=None):
        self.core_op = core_op
        self.signature = signature

    def __call__(self, *inputs):
        try:
            core = self.core_op.make_node(*inputs)
        except (TypeError, ValueError) as error:
            raise NotImplementedError(f"Blockwise({self.core_op}): inputs that are not of the core op's ranks need "
                                      f"PyTensor's Blockwise, which opkit does not have ({error})") from error
        return core.outputs[0] if len(core.outputs) == 1 else core.outputs

    def __repr__(self):
        return f"Blockwise({self.core_op})"


as_tensor = as_tensor_variable

from opkit.tensor import vectorize  # noqa: E402  (not in opkit.tensor's __all__; PyTensor's namespace has it)

__all__ = [*_names, "Blockwise", "Op", "as_tensor", "flip", "join", "pad", "vectorize"]

# Also at pytensor.tensor: get_vector_length (Theano's helper, tensor/basic).
from opkit.compat.theano.tensor.basic import get_vector_length  # noqa: E402

__all__ += ["get_vector_length"]


from numpy import e, euler_gamma, inf, nan, newaxis, pi  # noqa: E402  (PyTensor's namespace has numpy's constants)

__all__ += ["e", "euler_gamma", "inf", "nan", "newaxis", "pi"]

# PyTensor's annotation of what as_tensor_variable takes: a variable, a sequence of them, or an array-like.
from collections.abc import Sequence as _Sequence  # noqa: E402
from typing import Union as _Union  # noqa: E402

from numpy.typing import ArrayLike as _ArrayLike  # noqa: E402

from opkit.core.graph import Variable as _Variable  # noqa: E402

TensorLike = _Union[_Variable, _Sequence[_Variable], _ArrayLike]
__all__ += ["TensorLike"]

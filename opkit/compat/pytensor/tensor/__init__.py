"""pytensor.tensor: opkit.tensor's names, and those a port imports that opkit.tensor spells otherwise or lacks.

Its submodules (``type``, ``math``, ``basic``, ``variable``, ``type_other``) are the paths PyTensor
code imports the same names from.

- ``join(axis, *tensors)`` is ``opkit.tensor.concatenate(tensors, axis)``; ``flip(x, axis=None)`` is
  a reversing slice; ``zeros``, ``as_tensor_variable`` are opkit.tensor's.
- ``Blockwise(core_op)`` is not vectorization: opkit has no Blockwise. Called on inputs of the core
  op's own ranks it is the core op; inputs with batch axes raise NotImplementedError naming it.
- ``pad`` raises NotImplementedError: opkit has no Pad op.
"""

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


# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.compat.pytensor.tensor._from_opkit_tensor import getattr_from_opkit_tensor as _from_tensor  # noqa: E402

__getattr__ = _from_tensor(__name__, also=[f"{__name__}.{m}" for m in ("basic", "math", "type", "type_other",
                                                                     "subtensor", "shape", "extra_ops")])

# Submodules named as functions: as in PyTensor, the module loads first and the function keeps the package's
# name (else importing pytensor.tensor.shape or .sort would put the module where pt.shape / pt.sort are).
import importlib as _importlib  # noqa: E402

for _module in ("shape", "sort"):
    _importlib.import_module(f"{__name__}.{_module}")
    globals().pop(_module, None)  # opkit.tensor's function, through __getattr__

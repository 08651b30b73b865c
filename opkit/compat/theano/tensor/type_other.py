"""theano.tensor.type_other: ``NoneConst`` and ``NoneTypeT``, the constant None (PyTensor's, opkit.compat.pytensor)."""

from opkit.compat.pytensor.tensor.type_other import NoneConst, NoneTypeT, none_type_t

__all__ = ["NoneConst", "NoneTypeT", "none_type_t"]

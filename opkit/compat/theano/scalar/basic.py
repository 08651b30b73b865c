"""theano.scalar.basic: opkit.scalar's names; ``exp``/``log`` as views without a vectorized C path."""

import opkit.scalar as _scalar
from opkit.compat.theano.gof.utils import MethodNotDefined
from opkit.scalar import *  # noqa: F403
from opkit.scalar import ScalarType as Scalar  # Theano 1.0's name for the scalar type class
from opkit.scalar import __all__


class _NoContiguousPath:
    """opkit's op under Theano's name: every attribute is the op's, except the vectorized C path."""

    def __init__(self, op):
        object.__setattr__(self, "_op", op)

    def c_code_contiguous_raw(self, dtype, n, i, o):
        raise MethodNotDefined("c_code_contiguous_raw", "opkit has no vectorized math library path")

    def __getattr__(self, name):
        return getattr(self._op, name)

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self):
        return repr(self._op)


exp = _NoContiguousPath(_scalar.exp)
log = _NoContiguousPath(_scalar.log)

"""pytensor.tensor.exceptions: ``NotScalarConstantError`` and ``EmptyConstantError`` (the same classes as Theano's)."""

from opkit.compat.theano.tensor.constants import EmptyConstantError, NotScalarConstantError

__all__ = ["EmptyConstantError", "NotScalarConstantError"]

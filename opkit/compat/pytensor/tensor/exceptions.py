"""pytensor.tensor.exceptions: ``NotScalarConstantError`` and ``EmptyConstantError`` (the same classes as Theano's)."""

from opkit.core.tensor.types.constant_value import EmptyConstantError, NotScalarConstantError

__all__ = ["EmptyConstantError", "NotScalarConstantError"]

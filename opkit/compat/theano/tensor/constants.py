"""Theano's name for the module of get_scalar_constant_value (opkit.core.tensor.types.constant_value)."""

from opkit.core.tensor.types.constant_value import (EmptyConstantError, NotScalarConstantError,  # noqa: F401
                                                    get_scalar_constant_value)

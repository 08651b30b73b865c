"""opkit.gradient: symbolic differentiation and the placeholder types op authors return from grad."""

from opkit.core.gradient import (DisconnectedInputError, DisconnectedOutputError, DisconnectedType, Lop, NullType,
                                 NullTypeGradError, Rop, connection_pattern, disconnected_type, grad,
                                 grad_not_implemented, grad_undefined)
from opkit.testing.verify_grad import GradientError, numeric_grad, verify_grad

__all__ = [
    "grad", "Lop", "Rop", "grad_undefined", "grad_not_implemented", "connection_pattern",
    "DisconnectedType", "NullType", "disconnected_type",
    "DisconnectedInputError", "DisconnectedOutputError", "NullTypeGradError",
    "verify_grad", "numeric_grad", "GradientError",
]

"""opkit.gradient: symbolic differentiation and the placeholder types op authors return from grad."""

from opkit.core.gradient import (DisconnectedInputError, DisconnectedOutputError, DisconnectedType, Lop, NullType,
                                 NullTypeGradError, Rop, connection_pattern, disconnected_type, grad,
                                 grad_not_implemented, grad_undefined, pullback, pushforward, subgraph_grad)
from opkit.link.jacobian import hessian, hessian_vector_product, jacobian
from opkit.core.gradient_ops import (DisconnectedGrad, GradClip, GradScale, UndefinedGrad, ZeroGrad,
                                     disconnected_grad, disconnected_grad_, grad_clip, grad_scale, undefined_grad,
                                     undefined_grad_, zero_grad, zero_grad_)
from opkit.testing.verify_grad import GradientError, numeric_grad, verify_grad

__all__ = [
    "grad", "Lop", "Rop", "pullback", "pushforward", "subgraph_grad", "jacobian", "hessian",
    "hessian_vector_product", "grad_undefined", "grad_not_implemented", "connection_pattern",
    "DisconnectedType", "NullType", "disconnected_type",
    "DisconnectedInputError", "DisconnectedOutputError", "NullTypeGradError",
    "zero_grad", "zero_grad_", "ZeroGrad", "disconnected_grad", "disconnected_grad_", "DisconnectedGrad",
    "undefined_grad", "undefined_grad_", "UndefinedGrad", "grad_clip", "GradClip", "grad_scale", "GradScale",
    "verify_grad", "numeric_grad", "GradientError",
]

"""theano.tensor.opt: rewrite registration decorators, documented no-ops (the rewrite is not applied), and the
names Theano's op modules import from it: ``MakeVector``, ``Shape_i``, ``get_scalar_constant_value``."""

from opkit.core.tensor.types.constant_value import get_scalar_constant_value
from opkit.core.builtin_ops import Shape_i
from opkit.core.tensor.shapes.shape_ops import MakeVector


def _register(*args, **kwargs):
    """``@register_canonicalize`` or ``@register_canonicalize("name", ...)``: return the rewrite unchanged."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda rewrite: rewrite


register_canonicalize = register_specialize = register_stabilize = register_useless = _register
register_uncanonicalize = register_specialize_device = _register

__all__ = ["MakeVector", "Shape_i", "get_scalar_constant_value", "register_canonicalize", "register_specialize", "register_stabilize", "register_useless",
           "register_uncanonicalize", "register_specialize_device"]

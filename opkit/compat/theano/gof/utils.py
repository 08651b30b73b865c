"""theano.gof.utils: MethodNotDefined."""

from opkit.core.type import MethodNotDefined

__all__ = ["MethodNotDefined"]

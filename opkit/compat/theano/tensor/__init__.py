"""theano.tensor: opkit.tensor's names, plus the submodule paths Theano ops import them from.

``theano.tensor.basic`` is this namespace; ``theano.tensor.opt`` holds no-op rewrite decorators.
"""

from opkit.tensor import *  # noqa: F403
from opkit.tensor import __all__ as _names
from opkit.compat.theano.tensor import basic, opt  # noqa: F401

__all__ = [*_names, "basic", "opt"]

"""pytensor.compile.function: ``function`` taking PyTensor's mode names and ``Out`` outputs.

``Out(variable, borrow=True)`` lets PyTensor return its own output buffer; opkit's functions
return arrays the caller owns, so ``borrow`` changes nothing here and ``Out`` is the variable.
"""

from opkit.compat.pytensor.compile.mode import get_mode
from opkit.link.function import function as _function


class Out:
    """A function output with PyTensor's options (``borrow``)."""

    def __init__(self, variable, borrow=False):
        self.variable = variable
        self.borrow = borrow

    def __repr__(self):
        return f"Out({self.variable}, borrow={self.borrow})"


def _unwrapped(outputs):
    if isinstance(outputs, Out):
        return outputs.variable
    if isinstance(outputs, (list, tuple)):
        return [o.variable if isinstance(o, Out) else o for o in outputs]
    return outputs


def function(inputs, outputs=None, mode=None, accept_inplace=False, **kwargs):
    """opkit.function with PyTensor's mode names and ``Out`` outputs; other keywords are opkit.function's.

    ``accept_inplace`` lets PyTensor compile a graph that already holds in-place ops; opkit.function takes
    such a graph as it is (an op's destroy_map is its own contract), so the flag changes nothing.
    """
    return _function(inputs, _unwrapped(outputs), mode=None if mode is None else get_mode(mode), **kwargs)


__all__ = ["Out", "function"]

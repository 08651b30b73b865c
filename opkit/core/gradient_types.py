"""What a gradient can be besides a value: undefined (NullType) or disconnected, and the errors."""

from __future__ import annotations

from opkit.core.type import Type


class PlaceholderAssignmentError(TypeError, AssertionError):
    """A value or another variable was given where a gradient placeholder type is expected (a TypeError, and
    the AssertionError Theano and PyTensor raise)."""


class _PlaceholderType(Type):
    """A type whose variables stand for a gradient fact and never hold a value."""

    def filter(self, value, strict=False, allow_downcast=None):
        raise PlaceholderAssignmentError(f"a {type(self).__name__} variable is a symbolic placeholder; it holds "
                                         "no value")

    def filter_variable(self, other, allow_convert=True):
        if getattr(other, "type", None) == self:
            return other
        raise PlaceholderAssignmentError(f"cannot use {other!r} where a {type(self).__name__} is expected: "
                                         f"a {type(self).__name__} variable is a symbolic placeholder, nothing "
                                         "can be assigned to it")

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __str__(self):
        return type(self).__name__


class NullType(_PlaceholderType):
    """The type of an undefined or unimplemented gradient; `why_null` says why."""

    def __init__(self, why_null="(no explanation given)", op=None, input_index=None):
        self.why_null = why_null
        self.op = op
        self.input_index = input_index


class DisconnectedType(_PlaceholderType):
    """The type of the gradient of a cost that does not depend on a variable."""


disconnected_type = DisconnectedType()
"""Call it, ``disconnected_type()``, for a variable marking a disconnected gradient."""


def grad_undefined(op, x_pos, x, comment=""):
    """Return a NullType variable: input `x_pos` (`x`) of `op` has no mathematical gradient."""
    return _null(op, x_pos, x, "is mathematically undefined", comment)


def grad_not_implemented(op, x_pos, x, comment=""):
    """Return a NullType variable: the gradient of input `x_pos` (`x`) of `op` is not implemented."""
    return _null(op, x_pos, x, "is not implemented", comment)


def _null(op, x_pos, x, status, comment):
    why = f"This variable is Null because the grad method for input {x_pos} ({x}) of the {op} op {status}."
    return NullType(f"{why} {comment}".rstrip(), op, x_pos)()


class _DisconnectedError(ValueError):
    """A variable of interest is not connected to the others through differentiable operations."""

    def __init__(self, variable, position, message):
        self.variable = variable
        self.position = position
        super().__init__(message)


class DisconnectedInputError(_DisconnectedError):
    """grad was asked for the gradient with respect to a variable the cost does not depend on."""

    def __init__(self, variable, position):
        super().__init__(variable, position, (
            f"grad: the cost does not depend on wrt[{position}] ({variable}).\n"
            "It is not part of the cost's graph, or reaches it only through non-differentiable operations.\n"
            "Hint: pass disconnected_inputs='warn' or 'ignore' to get zeros for it."))


class DisconnectedOutputError(_DisconnectedError):
    """Rop was asked for an output that does not depend on any of `wrt`."""

    def __init__(self, variable, position):
        super().__init__(variable, position, (
            f"Rop: output f[{position}] ({variable}) does not depend on wrt through differentiable operations.\n"
            "Hint: pass disconnected_outputs='warn' or 'ignore' to get zeros for it."))


class NullTypeGradError(TypeError):
    """The gradient with respect to a requested variable is undefined or not implemented.

    Raised by grad (`variable` is ``wrt[position]``), and by function when an output
    it is asked to compile is or uses such a gradient (``compiling=True``: `variable`
    is ``outputs[position]``). `op` and `input_index` say which op input has no gradient.
    """

    def __init__(self, variable, position, null_type, compiling=False):
        self.variable = variable
        self.position = position
        self.why_null = null_type.why_null
        self.op = null_type.op
        self.input_index = null_type.input_index
        if compiling:
            how = "is" if isinstance(variable.type, NullType) else f"({variable}) depends on"
            message = (f"function: output {position} {how} an undefined gradient (NullType), which "
                       "cannot be computed.\n"
                       f"{self.why_null}\n"
                       "Hint: differentiate with respect to other variables, or define the op's gradient.")
        else:
            message = (f"grad: the gradient with respect to wrt[{position}] ({variable}) cannot be computed.\n"
                       f"{self.why_null}\n"
                       "Hint: pass null_gradients='return' to get the NullType variable instead of this error.")
        super().__init__(message)


for _cls in (DisconnectedInputError, DisconnectedOutputError, NullTypeGradError):
    _cls.__module__ = "opkit.gradient"

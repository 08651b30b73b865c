"""``In``: how a function takes one of its inputs (Theano's and PyTensor's ``In``)."""

from __future__ import annotations

from opkit.core.graph import Variable
from opkit.core.shared import Container, SharedVariable


class In:
    """An input of ``opkit.function`` with options: ``function([In(x, strict=True)], y)``.

    - `strict`: the value must be of the variable's type exactly (no conversion).
    - `allow_downcast`: True converts a value that does not fit (as numpy's astype); False refuses any
      lossy conversion; None (default) allows it for Python numbers and lists when nothing is lost.
    - `mutable`: the function may overwrite the value passed (an op working in place on it).
    - `value`: the input's default, used when a call does not pass it.
    - `implicit` with `value` a Container (or a shared variable): the input is never passed; it is read
      from the container at each call, and `update` is stored into it after each call.
    """

    def __init__(self, variable, name=None, value=None, update=None, mutable=None, strict=False,
                 allow_downcast=None, autoname=True, implicit=None, borrow=None, shared=False):
        if not isinstance(variable, Variable):
            raise TypeError(f"In: {variable!r} is not an opkit Variable")
        if update is not None and not _same_type(variable.type, update.type):
            raise TypeError(f"In: the update of {variable} has type {update.type}, not the input's type "
                            f"{variable.type}")
        self.variable = variable
        self.name = variable.name if name is None and autoname else name
        self.update = update
        self.mutable = bool(mutable) if mutable is not None else update is not None
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.implicit = _is_container(value) if implicit is None else bool(implicit)
        self.value = value
        self.borrow = borrow

    def __repr__(self):
        return f"In({self.variable})"


NO_DEFAULT = object()  # an explicit input the caller must pass


class InputPlan:
    """What ``function`` makes of its inputs (Variables or In): the explicit variables, how each call's values
    are filtered, and the implicit inputs as givens and updates over a shared stand-in of their container."""

    def __init__(self, variables, options, givens, updates):
        self.variables = variables  # the explicit inputs, in order
        self.options = options  # (strict, allow_downcast, mutable, default or NO_DEFAULT) per explicit input
        self.givens = givens  # [(implicit input, its shared stand-in)]
        self.updates = updates  # [(stand-in, update expression)]


def expand_inputs(inputs, allow_input_downcast=None):
    """Return the InputPlan of a function's `inputs`; `allow_input_downcast` is the default of each input's
    ``allow_downcast``. An implicit In reads its value from its container at each call (as a shared variable
    does, through a stand-in over that container) and stores its update there after the call."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("function inputs must be a list of Variables, e.g. function([x], y)")
    variables, options, givens, updates = [], [], [], []
    for item in inputs:
        spec = item if isinstance(item, In) else None
        if spec is None:
            variables.append(item)
            options.append((False, allow_input_downcast, False, NO_DEFAULT))
        elif spec.implicit:
            stand_in = _stand_in(spec)
            givens.append((spec.variable, stand_in))
            if spec.update is not None:
                updates.append((stand_in, spec.update))
        else:
            if spec.update is not None and not isinstance(spec.variable, SharedVariable):  # shared: plan_shared says
                raise NotImplementedError(f"In({spec.variable}): an update of an explicit input (one passed at "
                                          "each call); give it a Container with implicit=True instead")
            variables.append(spec.variable)
            allow = allow_input_downcast if spec.allow_downcast is None else spec.allow_downcast
            default = NO_DEFAULT if spec.value is None else spec.value
            options.append((spec.strict, allow, spec.mutable, default))
    return InputPlan(variables, options, givens, updates)


def _stand_in(spec):
    """Return a shared variable over the implicit input's storage (a Container, or a new one holding its value)."""
    value = spec.value
    if isinstance(value, SharedVariable):
        return value
    if not _is_container(value):
        value = Container(spec.variable, spec.variable.type.filter(value))
    return SharedVariable(spec.variable.type, container=value, name=spec.name)


def _is_container(value):
    """A storage cell: a shared variable, or a Container (opkit's, or Theano's ``link.Container``)."""
    return isinstance(value, (Container, SharedVariable)) or isinstance(getattr(value, "storage", None), list)


def _same_type(a, b):
    in_type = getattr(a, "in_same_class", None)
    return a == b or (in_type is not None and in_type(b))


__all__ = ["In", "InputPlan", "expand_inputs"]

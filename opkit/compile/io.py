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
    - `value`, `implicit`, `update`: a Container (or a value) the input is read from when it is
      implicit (not passed at the call), and the expression stored into it after each call.
    """

    def __init__(self, variable, name=None, value=None, update=None, mutable=None, strict=False,
                 allow_downcast=None, autoname=True, implicit=None, borrow=None, shared=False):
        if not isinstance(variable, Variable):
            raise TypeError(f"In: {variable!r} is not an opkit Variable")
        if isinstance(variable, SharedVariable):
            raise TypeError(f"Cannot use a shared variable ({variable}) as explicit input of a function: functions "
                            "read shared variables without listing them.\nHint: pass its update through "
                            "function(..., updates={shared: expression}).")
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


def _is_container(value):
    """A storage cell: a shared variable, or a Container (opkit's, or Theano's ``link.Container``)."""
    return isinstance(value, (Container, SharedVariable)) or isinstance(getattr(value, "storage", None), list)


def _same_type(a, b):
    in_type = getattr(a, "in_same_class", None)
    return a == b or (in_type is not None and in_type(b))


__all__ = ["In"]

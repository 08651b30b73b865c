"""Types: what values a Variable may hold, and (for CType) how C code sees them."""

from __future__ import annotations

import functools
from typing import Any

from opkit.core.c_render import render
from opkit.core.clinker import CLinkerObject, MethodNotDefined  # MethodNotDefined: its home was this module
from opkit.core.graph import Constant, Variable


class Type:
    """The kind of value a Variable holds; filter() turns a value into a valid one.

    A bare ``Type()`` works and methods assigned on the instance
    (``double.filter = filter``, without ``self``) are the ones used.
    """

    variable_type = Variable
    constant_type = Constant

    def filter(self, value: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return `value` as a valid value of this type, or raise TypeError."""
        return value

    def filter_variable(self, other, allow_convert=True):
        """Return `other` as a Variable of this type (wrapping plain values as constants).

        With `allow_convert`, a variable that :meth:`convert_variable` accepts is converted.
        """
        if not isinstance(other, Variable):
            other = self.constant_type(self, other)
        if other.type == self:
            return other
        converted = self.convert_variable(other) if allow_convert else None
        if converted is None:
            raise TypeError(f"cannot use a variable of type {other.type} where {self} is expected")
        return converted

    def in_same_class(self, other):
        """Return True if `other` belongs to the same family of types as this one (by default: equal)."""
        return self == other

    def is_super(self, other):
        """Return True if this type includes every value of `other` (``other`` may replace it).

        As PyTensor's: None when the relation cannot be decided. The base rule is equality;
        TensorType also counts a type with more static shape as included.
        """
        return True if self.in_same_class(other) else None

    def convert_variable(self, var):
        """Return a variable usable where this type is expected (`var` itself if its type is as specific), or None."""
        if self.is_super(var.type):
            return var
        return None

    def is_valid_value(self, value):
        """Return True if `value` is already a valid value of this type."""
        try:
            self.filter(value, strict=True)
            return True
        except (TypeError, ValueError):
            return False

    def values_eq(self, a, b):
        """Return True if a and b are equal values of this type."""
        return a == b

    def values_eq_approx(self, a, b):
        """Return True if a and b are equal up to rounding (used by DebugMode and tests)."""
        return self.values_eq(a, b)

    def make_variable(self, name=None):
        return self.variable_type(self, None, None, name)

    def make_constant(self, value, name=None):
        return self.constant_type(self, value, name=name)

    def __call__(self, name=None):
        """Return a new symbolic Variable of this type."""
        return self.make_variable(name)

    def clone(self):
        import copy

        return copy.copy(self)

    def __eq__(self, other):
        if self is other:
            return True
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(type(self))

    def __str__(self):
        name = getattr(self, "name", None)
        return name if isinstance(name, str) else type(self).__name__

    __repr__ = __str__


class CType(Type, CLinkerObject):
    """A Type with a C interface: how to declare, extract, sync and clean up a C value.

    The linker declares ``PyObject* py_<name>`` and owns the storage; a type
    must not declare those.
    """

    def c_declare(self, name, sub, check_input=True):
        raise MethodNotDefined("c_declare", type(self).__name__)

    def c_init(self, name, sub):
        raise MethodNotDefined("c_init", type(self).__name__)

    def c_extract(self, name, sub, check_input=True):
        raise MethodNotDefined("c_extract", type(self).__name__)

    def c_sync(self, name, sub):
        raise MethodNotDefined("c_sync", type(self).__name__)

    def c_cleanup(self, name, sub):
        raise MethodNotDefined("c_cleanup", type(self).__name__)

    def c_element_type(self):
        raise MethodNotDefined("c_element_type", type(self).__name__)


@functools.lru_cache(maxsize=4096)
def _render_generic(macro, name):
    return render("generic_type.c.j2", macro, name=name)


class Generic(CType):
    """Any Python object; its C value is a borrowed-then-owned ``PyObject*`` (opkit/templates/generic_type.c.j2)."""

    def filter(self, value, strict=False, allow_downcast=None):
        return value

    def is_valid_value(self, value):
        return True

    def c_declare(self, name, sub, check_input=True):
        return _render_generic("declare", name)

    def c_init(self, name, sub):
        return _render_generic("init", name)

    def c_extract(self, name, sub, check_input=True):
        return _render_generic("extract", name)

    def c_cleanup(self, name, sub):
        return _render_generic("cleanup", name)

    def c_sync(self, name, sub):
        return _render_generic("sync", name)

    def c_code_cache_version(self):
        return (1,)

    def __str__(self):
        return "generic"


generic = Generic()

"""Enum types: integer parameters whose names are constants in the generated C code."""

from __future__ import annotations

import math
import numbers
import re

from opkit.core.c_source import render
from opkit.core.type import CType

_C_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z", re.ASCII)  # Theano's and PyTensor's rule: a C macro's name


class EnumNameError(TypeError, AttributeError):
    """An enum constant's name is not upper-case letters, digits and underscores starting with a letter.

    Theano and PyTensor raise AttributeError; opkit raised TypeError: this is both.
    """


def _c(macro, **values):
    """Return the C text of `macro` in opkit/templates/enum_type.c.j2."""
    return render("enum_type.c.j2", macro, **values)


class EnumType(CType):
    """Named integer constants: ``EnumType(ADD=0, MUL=1)``; in C, ``#define ADD 0`` and an ``int``.

    ``enum.ADD`` is 0 in Python; a value of the type is one of the constants'
    values, and ``filter`` also accepts a constant's name or alias
    (``"MUL"`` -> 1). ``ctype`` is the C type of a variable (``int``).
    """

    def __init__(self, ctype="int", **constants):
        aliases = {}
        for name, value in constants.items():  # Theano's NAME=("alias", value)
            if isinstance(value, (tuple, list)):
                if len(value) != 2 or not isinstance(value[0], str):
                    raise TypeError(f"{type(self).__name__}: constant {name}: expected a value or an "
                                    f"(alias, value) pair, got {value!r}")
                if value[0] == name or value[0] in aliases:
                    raise TypeError(f"{type(self).__name__}: alias {value[0]!r} of constant {name} is "
                                    f"{'the constant itself' if value[0] == name else 'given twice'}")
                aliases[value[0]], constants[name] = name, value[1]
        self._setup(constants, aliases, ctype)

    def _setup(self, constants, aliases, ctype):
        if not constants:
            raise TypeError(f"{type(self).__name__} needs at least one constant")
        for name, value in constants.items():
            if not _C_NAME.match(name):
                raise EnumNameError(f"{type(self).__name__}: constant name {name!r} must be a C identifier of "
                                    "upper-case letters, digits and underscores, starting with a letter (a C "
                                    "macro's name, as Theano and PyTensor require)")
            constants[name] = _integer(type(self).__name__, name, value)
        for alias in aliases:
            if alias in constants:
                raise TypeError(f"{type(self).__name__}: alias {alias!r} is also a constant name")
        if not isinstance(ctype, str) or not ctype.strip():
            raise TypeError(f"{type(self).__name__}: ctype must name a C integer type, got {ctype!r}")
        self.constants = {name: int(value) for name, value in constants.items()}
        self.aliases = dict(aliases)  # alias -> constant name
        self.ctype = ctype

    def __getattr__(self, name):
        constants = self.__dict__.get("constants")
        if constants is None or name.startswith("__"):
            raise AttributeError(name)  # not set up yet (copy, unpickling): no str(self) here
        if name in constants:
            return constants[name]
        raise AttributeError(f"{self} has no constant {name!r}")

    def values(self):
        return sorted(set(self.constants.values()))

    def fromalias(self, alias):
        """Return the value of the constant named or aliased `alias`."""
        name = self.aliases.get(alias, alias)
        if name not in self.constants:
            raise TypeError(f"{alias!r} is neither a constant nor an alias of {self}")
        return self.constants[name]

    # Theano's EnumType is a dict of its constants: the same reading methods.
    def get_aliases(self):
        """Return the sorted tuple of the aliases (Theano's name)."""
        return tuple(sorted(self.aliases))

    def has_alias(self, alias):
        return alias in self.aliases

    def __contains__(self, name):
        return name in self.constants

    def __getitem__(self, name):
        return self.constants[name]

    def __len__(self):
        return len(self.constants)

    def __iter__(self):
        return iter(self.constants)

    def filter(self, value, strict=False, allow_downcast=None):
        """Return the integer value of a constant given by value, name or alias; TypeError otherwise."""
        if isinstance(value, str) and not strict:
            return self.fromalias(value)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) in self.constants.values():
            if strict and type(value) is not int:
                raise TypeError(f"expected a Python int for {self}, got {type(value).__name__}")
            return int(value)
        raise TypeError(f"{value!r} is not a value of {self}; expected one of {self.constants} "
                        f"or a constant's name")

    def values_eq(self, a, b):
        return a == b

    def __eq__(self, other):
        return (type(self) is type(other) and self.constants == other.constants
                and self.aliases == other.aliases and self.ctype == other.ctype)

    def __hash__(self):
        return hash((type(self), tuple(sorted(self.constants.items())), self.ctype))

    def __str__(self):
        return f"{type(self).__name__}({', '.join(self.constants)})"

    __repr__ = __str__

    # ---- C interface ----

    def c_support_code(self):
        """Define each constant as a macro; the same name defined with another value is a compile error."""
        return _c("constants", constants=list(self.constants.items()))

    def c_declare(self, name, sub, check_input=True):
        return _c("declare", ctype=self.ctype, name=name)

    def c_init(self, name, sub):
        return _c("init", name=name)

    def _c_value(self, name, sub):
        """C code turning the Python int in value_<name> into the variable (may fail)."""
        return _c("value", ctype=self.ctype, name=name, fail=sub["fail"])

    def c_extract(self, name, sub, check_input=True):
        return _c("extract", name=name, value=self._c_value(name, sub), fail=sub["fail"])

    def c_sync(self, name, sub):
        return _c("sync", name=name, fail=sub["fail"])

    def c_cleanup(self, name, sub):
        return ""

    def c_code_cache_version(self):
        return (1,)


def _integer(kind, name, value):
    """Return the int value of a constant: an int, a bool (as Theano, 0 or 1) or a float holding an integer."""
    if isinstance(value, (bool, numbers.Integral)) or getattr(getattr(value, "dtype", None), "kind", "") == "b":
        return int(value)  # a bool, numpy's too: 0 or 1
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)  # Theano's EnumType(C=-1.0) equals EnumType(C=-1); opkit's constants are C integers
    raise TypeError(f"{kind}: constant {name} must be an integer, got {value!r}")


class EnumList(EnumType):
    """Constants numbered in order: ``EnumList("ADD", "MUL")`` is ADD=0, MUL=1.

    A name may be a pair ``("MODE_ADD", "add")``: the constant and an alias
    that ``filter`` (and so an op's prop) also accepts.
    """

    def __init__(self, *names, ctype="int"):
        constants, aliases = {}, {}
        for index, entry in enumerate(names):
            if isinstance(entry, tuple) and len(entry) == 2:
                entry, alias = entry
                aliases[alias] = entry
            if not isinstance(entry, str):
                raise TypeError(f"EnumList: expected constant names or (name, alias) pairs, got {entry!r}")
            if entry in constants:
                raise TypeError(f"EnumList: constant {entry!r} given twice")
            constants[entry] = index
        self._setup(constants, aliases, ctype)


class CEnumType(EnumList):
    """Constants defined by C code (a header): ``CEnumType("FFTW_FORWARD", "FFTW_BACKWARD")``.

    In Python a value is the constant's position (0, 1, ...); in C the
    variable holds the C constant itself. opkit defines no macro: the op's
    headers or support code must.
    """

    def c_support_code(self):
        return ""

    def _c_value(self, name, sub):
        return _c("c_value", ctype=self.ctype, name=name, cases=list(self.constants.items()),
                  description=str(self), fail=sub["fail"])

    def c_sync(self, name, sub):
        return _c("c_sync", ctype=self.ctype, name=name, cases=list(self.constants.items()), fail=sub["fail"])

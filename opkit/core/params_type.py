"""ParamsType: an op's parameters as one C struct, extracted once per compiled function.

Parameters are run-time data: the C text of a ParamsType names its fields and
their types, never their values, so ops that differ only in parameter values
share one compiled module.
"""

from __future__ import annotations

import inspect
import keyword
import re

from opkit.core.c_source import render
from opkit.core.clinker import call_with_compiler
from opkit.core.digest import sha256
from opkit.core.memo import BoundedMemo
from opkit.core.type import CType, MethodNotDefined

_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z", re.ASCII)
_C_NAMES = frozenset({"auto", "char", "class", "const", "default", "delete", "double", "float", "int", "long",
                      "new", "operator", "private", "public", "short", "signed", "struct", "template", "this",
                      "typedef", "union", "unsigned", "void", "volatile"})


def _hashable(value):
    """Return a hashable stand-in for a field value (arrays hash by dtype, shape and bytes)."""
    try:
        hash(value)
        return value
    except TypeError:
        tobytes = getattr(value, "tobytes", None)
        if tobytes is not None:
            return (str(getattr(value, "dtype", "")), getattr(value, "shape", None), tobytes())
        return ("repr", type(value).__name__, repr(value))  # equal lists, dicts ... hash alike


def _equal(field_type, a, b):
    """Return True if two field values are equal (an array in a Generic field compares element-wise)."""
    try:
        return bool(field_type.values_eq(a, b))
    except ValueError:  # the truth value of an array
        return type(a) is type(b) and _hashable(a) == _hashable(b)


class Params:
    """The value of a ParamsType: its fields as attributes, compared and hashed by value."""

    def __init__(self, params_type, **values):
        missing = [f for f in params_type.fields if f not in values]
        extra = [f for f in values if f not in params_type.fields]
        if missing or extra:
            raise TypeError(f"Params of {params_type}: missing fields {missing}, unknown fields {extra}")
        object.__setattr__(self, "params_type", params_type)
        for name in params_type.fields:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name, value):
        raise AttributeError("Params are immutable: make a new one")

    def __getitem__(self, name):
        return getattr(self, name)

    def values(self):
        return tuple(getattr(self, f) for f in self.params_type.fields)

    def __eq__(self, other):
        if not isinstance(other, Params) or other.params_type != self.params_type:
            return NotImplemented
        return all(_equal(t, a, b) for t, a, b in zip(self.params_type.types, self.values(), other.values()))

    def __hash__(self):
        return hash((self.params_type, tuple(_hashable(v) for v in self.values())))

    def __repr__(self):
        body = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.params_type.fields)
        return f"Params({body})"


class ParamsType(CType):
    """A C struct of named fields (scalar, tensor, enum types or Generic): ``ParamsType(alpha=float64)``.

    In C, a variable of this type is a pointer to the struct, so an op's code
    reads ``PARAMS->alpha`` (``sub["params"]`` in ``c_code``).
    """

    def __init__(self, **fields):
        if not fields:
            raise TypeError("ParamsType needs at least one field, e.g. ParamsType(alpha=opkit.scalar.float64)")
        for name, field_type in fields.items():
            if not _FIELD.match(name) or keyword.iskeyword(name) or name in _C_NAMES:
                raise TypeError(f"ParamsType field name {name!r} must be a C identifier starting with a letter")
            if not isinstance(field_type, CType):
                raise TypeError(f"ParamsType field {name!r}: expected an opkit type with a C interface "
                                f"(a scalar, tensor or enum type, or Generic), got {field_type!r}")
        self.fields = tuple(sorted(fields))  # sorted, as PyTensor does: the struct is the same whatever the order
        self.types = tuple(fields[name] for name in self.fields)
        self._const_to_enum, self._alias_to_enum = enum_maps(self.fields, self.types)

    @property
    def length(self):
        """The number of fields (Theano's attribute)."""
        return len(self.fields)

    def __eq__(self, other):
        return type(self) is type(other) and self.fields == other.fields and self.types == other.types

    def __hash__(self):
        return hash((type(self), self.fields, self.types))

    def __str__(self):
        return "ParamsType<" + ", ".join(f"{f}:{t}" for f, t in zip(self.fields, self.types)) + ">"

    __repr__ = __str__

    def __getattr__(self, name):
        """Give the enum constants of enum fields as attributes (``params_type.MUL``)."""
        if name.startswith("__") or "types" not in self.__dict__:
            raise AttributeError(name)  # not set up yet (copy, unpickling): no str(self) here
        enum = self.__dict__.get("_const_to_enum", {}).get(name)
        if enum is not None:
            return enum.constants[name]
        raise AttributeError(f"{self} has no field type defining a constant {name!r}"
                             f"{_known(self.__dict__.get('_const_to_enum', {}), 'constants')}")

    # ---- Theano's look-ups (theano.gof.params_type) ----

    def get_enum(self, key):
        """Return the value of the enum constant named `key` in this type's enum fields (KeyError if none)."""
        enum = self._const_to_enum.get(key)
        if enum is None:
            known = _known(self._const_to_enum, "constants")
            raise KeyError(f"{self}: no enum field defines a constant {key!r}{known}")
        return enum.constants[key]

    def enum_from_alias(self, alias):
        """Return the value of the enum constant aliased `alias`, else of the constant named `alias` (KeyError)."""
        enum = self._alias_to_enum.get(alias)
        if enum is not None:
            return enum.fromalias(alias)
        if alias in self._const_to_enum:
            return self._const_to_enum[alias].constants[alias]
        raise KeyError(f"{self}: no enum field defines an alias or a constant {alias!r}"
                       f"{_known(self._alias_to_enum, 'aliases')}{_known(self._const_to_enum, 'constants')}")

    def has_type(self, field_type):
        """Return True if some field has type `field_type`."""
        return field_type in self.types

    def get_type(self, field_name):
        """Return the type of the field `field_name` (ValueError if there is no such field)."""
        if field_name not in self.fields:
            raise ValueError(f"{self} has no field {field_name!r}; its fields are {', '.join(self.fields)}")
        return self.types[self.fields.index(field_name)]

    field_type = get_type

    def get_field(self, field_type):
        """Return the name of the first field (in sorted order) of type `field_type` (ValueError if none)."""
        if field_type not in self.types:
            raise ValueError(f"{self} has no field of type {field_type}")
        return self.fields[self.types.index(field_type)]

    def extended(self, **fields):
        """Return a new ParamsType with these fields added (a field given again takes its new type)."""
        return ParamsType(**{**dict(zip(self.fields, self.types)), **fields})

    def get_params(self, *objects, **values):
        """Return Params taking each field from `values`, else from the first object with that attribute."""
        found = dict(values)
        for name in self.fields:
            for obj in objects:
                if name in found:
                    break
                value = _read_field(obj, name, self)
                if value is not _ABSENT:
                    found[name] = value
        missing = [name for name in self.fields if name not in found]
        if missing:
            owners = ", ".join(type(o).__name__ for o in objects) or "the arguments"
            raise MethodNotDefined("get_params", f"{owners} has no attribute for the params field(s) {missing}; "
                                   "give the op attributes of those names or define get_params(node)")
        return self.filter(Params(self, **{name: found[name] for name in self.fields}))

    def filter(self, value, strict=False, allow_downcast=None):
        """Return `value` (Params, a dict or an object with the fields as attributes) as Params of this type."""
        if isinstance(value, Params) and value.params_type == self and strict:
            for name, field_type in zip(self.fields, self.types):  # each field of its type, as Theano checks
                try:
                    field_type.filter(getattr(value, name), strict=True)
                except (TypeError, ValueError) as exc:
                    raise TypeError(f"params field {name!r}: {exc}") from None
            return value
        if strict:
            raise TypeError(f"expected Params of {self}, got {value!r}")
        get = value.get if isinstance(value, dict) else (lambda name, default: getattr(value, name, default))
        values = {}
        for name, field_type in zip(self.fields, self.types):
            item = get(name, _MISSING)
            if item is _MISSING:
                raise TypeError(f"{value!r} has no field {name!r} for {self}")
            try:
                values[name] = field_type.filter(item, strict=False, allow_downcast=allow_downcast)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"params field {name!r}: {exc}") from None
        return Params(self, **values)

    def values_eq(self, a, b):
        return a == b

    def values_eq_approx(self, a, b):
        """Return True if every field of `a` and `b` is equal up to rounding (each field type's rule)."""
        return all(t.values_eq_approx(getattr(a, f), getattr(b, f)) for f, t in zip(self.fields, self.types))

    @property
    def name(self):
        """The C struct's name (Theano's and PyTensor's ParamsType.name): equal types have equal names."""
        return self.struct_name()

    # ---- the C interface: a pointer to a generated struct ----

    def struct_name(self):
        return self._struct()[0]

    def _struct(self):
        """Return the struct's name (a digest of its C) and its definition, made once per equal ParamsType."""
        found = _STRUCTS.get(self)
        if found is None:
            digest = sha256(self._struct_body("STRUCT").encode()).hexdigest()[:16]
            struct = f"opkit_params_{digest}"
            found = (struct, _c("definition", struct=struct, body=self._struct_body(struct)))
            _STRUCTS[self] = found
        return found

    def _struct_body(self, struct):
        fields = list(zip(self.fields, self.types))
        return _c("struct_body", struct=struct,
                  declares=[_call(t, "c_declare", f, {"fail": _c("declare_fail")}) for f, t in fields],
                  inits=[_call(t, "c_init", f, {}) for f, t in fields],
                  cleanups=[_call(t, "c_cleanup", f, {}) for f, t in fields],
                  extracts=[self._extract_field(f, t) for f, t in fields])

    @staticmethod
    def _extract_field(name, field_type):
        extract = _call(field_type, "c_extract", name, {"fail": _c("field_fail", name=name)}, check_input=True)
        return _c("extract_field", name=name, extract=extract)

    def c_support_code(self):
        codes = []
        for field_type in self.types:
            for code in _as_list(getattr(field_type, "c_support_code", lambda: "")()):
                if code not in codes:
                    codes.append(code)
        codes.append(self._struct()[1])
        return codes

    def c_declare(self, name, sub, check_input=True):
        return _c("declare", struct=self.struct_name(), name=name)

    def c_init(self, name, sub):
        return _c("init", name=name)

    def c_extract(self, name, sub, check_input=True):
        return _c("extract", struct=self.struct_name(), name=name, fail=sub["fail"])

    def c_sync(self, name, sub):
        return _c("sync", fail=sub["fail"])

    def c_cleanup(self, name, sub):
        return _c("cleanup", name=name)

    def _gather(self, method, *c_compiler):
        """Each field type's `method` results, without repeats; `c_compiler` for the flags methods."""
        found = []
        for field_type in self.types:
            for item in _as_list(_call_optional(field_type, method, *c_compiler)):
                if item not in found:
                    found.append(item)
        return found

    def c_headers(self, c_compiler=None):
        return self._gather("c_headers", c_compiler)

    def c_header_dirs(self, c_compiler=None):
        return self._gather("c_header_dirs", c_compiler)

    def c_libraries(self, c_compiler=None):
        return self._gather("c_libraries", c_compiler)

    def c_lib_dirs(self, c_compiler=None):
        return self._gather("c_lib_dirs", c_compiler)

    def c_compile_args(self, c_compiler=None):
        return self._gather("c_compile_args", c_compiler)

    def c_init_code(self):
        return self._gather("c_init_code")

    def c_code_cache_version(self):
        versions = [_call_optional(t, "c_code_cache_version") for t in self.types]
        if not all(versions):
            return ()
        return (1, *[tuple(v) for v in versions])


_MISSING = object()


class ParamsTypeError(TypeError, AttributeError):
    """Two enum fields of a ParamsType share a constant or alias name (Theano and PyTensor raise AttributeError)."""


def enum_maps(fields, types):
    """Return {constant: enum type} and {alias: enum type} over the enum fields, refusing shared names (as Theano)."""
    const_to_enum, alias_to_enum, field_of = {}, {}, {}  # field_of: (kind, name) -> the field defining it
    for field, field_type in zip(fields, types):
        constants, aliases = getattr(field_type, "constants", None), getattr(field_type, "aliases", None)
        if not isinstance(constants, dict):
            continue
        for name in constants:
            if name in const_to_enum:
                raise ParamsTypeError(f"ParamsType: the enum constant {name!r} is defined by two fields' types "
                                      f"({const_to_enum[name]} of field {field_of['c', name]!r} and {field_type} "
                                      f"of field {field!r}); constant names must be unique across a ParamsType's "
                                      "enums")
            const_to_enum[name], field_of["c", name] = field_type, field
        for alias in aliases or {}:
            if alias in alias_to_enum:
                raise ParamsTypeError(f"ParamsType: the enum alias {alias!r} is defined by two fields' types "
                                      f"({alias_to_enum[alias]} of field {field_of['a', alias]!r} and {field_type} "
                                      f"of field {field!r})")
            alias_to_enum[alias], field_of["a", alias] = field_type, field
    clash = sorted(set(alias_to_enum) & set(const_to_enum))
    if clash:
        where = "; ".join(f"{n!r}: an alias in field {field_of['a', n]!r}, a constant in field {field_of['c', n]!r}"
                          for n in clash)
        raise ParamsTypeError(f"ParamsType: {clash} are both enum aliases and constant names ({where})")
    return const_to_enum, alias_to_enum


def _known(mapping, what):
    return f"; known {what}: {', '.join(sorted(mapping))}" if mapping else (
        "; this ParamsType has no enum field" if what == "constants" else "")
# ParamsType -> (struct name, definition): equal types have equal C, which costs renders to make.
_STRUCTS = BoundedMemo(256)


def _c(macro, **values):
    """Return the C text of `macro` in opkit/templates/params_type.c.j2."""
    return render("params_type.c.j2", macro, **values)


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    return list(value)


def _call(obj, method, name, sub, **optional):
    """Call a field type's C method (tutorial types may omit check_input)."""
    function = getattr(obj, method)
    try:
        return function(name, sub, **optional)
    except TypeError:
        if not optional:
            raise
        return function(name, sub)


def _call_optional(obj, method, *c_compiler):
    function = getattr(obj, method, None)
    if function is None:
        return None
    try:
        return call_with_compiler(function, *c_compiler) if c_compiler else function()
    except MethodNotDefined:
        return None


_ABSENT = object()


def _read_field(obj, name, params_type):
    """Return `obj`'s attribute `name` for a params field, or _ABSENT when `obj` has no such attribute.

    An attribute `obj` has (a property, a class or instance attribute) that raises AttributeError
    when read is an error in its code, not a missing field: it is raised again with the field named
    and the original as its cause (hasattr would have hidden it as "has no attribute").
    """
    if inspect.getattr_static(obj, name, _ABSENT) is _ABSENT:
        try:  # a dynamic attribute (__getattr__): absent is what its AttributeError means
            return getattr(obj, name)
        except AttributeError:
            return _ABSENT
    try:
        return getattr(obj, name)
    except AttributeError as exc:
        raise AttributeError(f"reading {type(obj).__name__}.{name} for the params field {name!r} of {params_type} "
                             f"raised AttributeError: {exc}") from exc

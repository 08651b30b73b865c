"""Map types between opkit and PyTensor: tensors (dtype, static shape), scalars, Generic, enums, ParamsType.

A type without a counterpart raises `TypeNotMapped`, a NotImplementedError
naming the type, so a bridged op says exactly what keeps it out of PyTensor.
"""

from __future__ import annotations

from pytensor.link.c.params_type import ParamsType as PtParamsType
from pytensor.link.c.type import CEnumType as PtCEnumType
from pytensor.link.c.type import EnumList as PtEnumList
from pytensor.link.c.type import EnumType as PtEnumType
from pytensor.link.c.type import Generic as PtGeneric
from pytensor.scalar.basic import ScalarType as PtScalarType
from pytensor.tensor.type import TensorType as PtTensorType

from opkit.core.enum_type import CEnumType, EnumList, EnumType
from opkit.core.params_type import Params, ParamsType
from opkit.core.scalar_type import ScalarType
from opkit.core.tensor.types.type import TensorType
from opkit.core.type import Generic


class TypeNotMapped(NotImplementedError):
    """A type, opkit's or PyTensor's, that has no counterpart on the other side."""

    def __init__(self, type_, where):
        self.type = type_
        super().__init__(f"{where}: the type {type_} ({type(type_).__module__}.{type(type_).__qualname__}) "
                         "has no counterpart; the bridge maps tensor and scalar types, Generic, enum types "
                         "and ParamsType of those")


def to_pytensor_type(opkit_type, where="opkit.bridge.pytensor"):
    """Return the PyTensor type of an opkit type (TypeNotMapped if it has none)."""
    if isinstance(opkit_type, TensorType):
        return PtTensorType(opkit_type.dtype, shape=opkit_type.shape)
    if isinstance(opkit_type, ScalarType):
        return PtScalarType(opkit_type.dtype)
    if isinstance(opkit_type, ParamsType):
        fields = {name: to_pytensor_type(t, f"{where}, params field {name!r}")
                  for name, t in zip(opkit_type.fields, opkit_type.types)}
        return PtParamsType(**fields)
    if type(opkit_type) is Generic:
        return PtGeneric()
    if type(opkit_type) in (EnumType, EnumList, CEnumType):
        return _pytensor_enum(opkit_type)
    raise TypeNotMapped(opkit_type, where)


def _reduce_from_opkit(self, protocol=2):
    # PyTensor 3.0's enum types cannot be unpickled (their dict refuses __setitem__), and its C
    # module cache pickles a module's key, params types included: rebuild from the opkit enum instead.
    return (_pytensor_enum, (self.opkit_enum,))


class _EnumType(PtEnumType):
    __reduce_ex__ = _reduce_from_opkit


class _EnumList(PtEnumList):
    __reduce_ex__ = _reduce_from_opkit


class _CEnumType(PtCEnumType):
    __reduce_ex__ = _reduce_from_opkit


def _pytensor_enum(enum):
    """Return PyTensor's enum type with the constants, aliases and C type of an opkit one (picklable)."""
    alias_of = {name: alias for alias, name in enum.aliases.items()}
    if type(enum) is EnumType:
        constants = {name: (alias_of[name], value) if name in alias_of else value
                     for name, value in enum.constants.items()}
        result = _EnumType(**constants, ctype=enum.ctype)
    else:
        names = sorted(enum.constants, key=enum.constants.get)
        entries = [(name, alias_of[name]) if name in alias_of else name for name in names]
        result = (_CEnumType if type(enum) is CEnumType else _EnumList)(*entries, ctype=enum.ctype)
    result.opkit_enum = enum
    return result


def to_opkit_type(pytensor_type, where="opkit.bridge.pytensor"):
    """Return the opkit type of a PyTensor type (TypeNotMapped if it has none)."""
    if isinstance(pytensor_type, PtTensorType):
        return TensorType(pytensor_type.dtype, shape=pytensor_type.shape)
    if isinstance(pytensor_type, PtScalarType):
        return ScalarType(pytensor_type.dtype)
    if isinstance(pytensor_type, PtParamsType):
        return ParamsType(**{name: to_opkit_type(t, f"{where}, params field {name!r}")
                             for name, t in zip(pytensor_type.fields, pytensor_type.types)})
    if type(pytensor_type) is PtGeneric:
        return Generic()
    if getattr(pytensor_type, "opkit_enum", None) is not None:
        return pytensor_type.opkit_enum
    if type(pytensor_type) in (PtEnumList, PtCEnumType) or (type(pytensor_type) is PtEnumType
                                                            and not pytensor_type.aliases):
        return _opkit_enum(pytensor_type)
    raise TypeNotMapped(pytensor_type, where)


def to_pytensor_params(params: Params, pytensor_params_type):
    """Return opkit Params as the PyTensor Params of `pytensor_params_type` (same fields)."""
    return pytensor_params_type.get_params(**{name: getattr(params, name) for name in params.params_type.fields})


def _opkit_enum(enum):
    """Return opkit's enum type with the constants, aliases and C type of a PyTensor one."""
    if type(enum) is PtEnumType:  # without aliases: opkit's EnumType takes aliases only as EnumList pairs
        return EnumType(ctype=enum.ctype, **dict(enum))
    alias_of = {name: alias for alias, name in enum.aliases.items()}
    names = sorted(enum, key=enum.get)
    entries = [(name, alias_of[name]) if name in alias_of else name for name in names]
    return (CEnumType if type(enum) is PtCEnumType else EnumList)(*entries, ctype=enum.ctype)

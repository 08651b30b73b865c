"""theano.gof.type: the type classes (opkit's)."""

from opkit import CDataType, CEnumType, CType, EnumList, EnumType, Generic, Type

__all__ = ["CDataType", "CEnumType", "CType", "EnumList", "EnumType", "Generic", "Type"]

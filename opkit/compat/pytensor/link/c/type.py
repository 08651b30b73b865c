"""pytensor.link.c.type: the C types, opkit's (``CType``, ``Generic``, ``CDataType``, ``EnumType``...)."""

from opkit import CDataType, CEnumType, CType, EnumList, EnumType, Generic
from opkit.core.type import generic

__all__ = ["CDataType", "CEnumType", "CType", "EnumList", "EnumType", "Generic", "generic"]

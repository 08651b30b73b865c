"""theano.gof.type: the type classes (opkit's) and ``generic``, the Generic type's instance."""

from opkit import CDataType, CEnumType, CType, EnumList, EnumType, Generic, Type
from opkit.core.type import generic

__all__ = ["CDataType", "CEnumType", "CType", "EnumList", "EnumType", "Generic", "Type", "generic"]

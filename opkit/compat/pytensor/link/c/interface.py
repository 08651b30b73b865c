"""pytensor.link.c.interface: ``CLinkerObject`` (opkit's), ``CLinkerOp`` (an op's C interface: opkit's Op has it),
``CLinkerType`` (a type's: opkit's CType)."""

from opkit.core.clinker import CLinkerObject
from opkit.core.op import Op as CLinkerOp
from opkit.core.type import CType as CLinkerType

__all__ = ["CLinkerObject", "CLinkerOp", "CLinkerType"]

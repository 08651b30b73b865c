"""theano.gof: the graph, op and type classes, and Theano's linker names mapped onto opkit's linkers.

``CLinker`` is opkit's whole-graph C linker (``Mode(linker="c")``), ``OpWiseCLinker`` its
module-per-node one (``"cop"``), ``PerformLinker`` runs ``perform`` (``"py"``), and
``DualLinker`` runs every node's perform and C and compares them (DebugMode's linker).
Pass an instance as ``opkit.Mode(linker=...)``.
"""

from opkit import (Apply, CDataType, CEnumType, COp, Constant, CType, EnumList, EnumType, Generic, Op, OpenMPOp,
                   Params, ParamsType, Type, Variable)
from opkit.compat.theano.gof import opt, type, utils  # noqa: A004
from opkit.compat.theano.gof.opt import local_optimizer, optimizer
from opkit.compat.theano.gof.utils import MethodNotDefined
from opkit.link.c_linker import GraphCLinker as CLinker, NodeCLinker as OpWiseCLinker
from opkit.link.debugmode import DebugLinker as DualLinker
from opkit.link.py_linker import PyLinker as PerformLinker

__all__ = ["Apply", "CDataType", "CEnumType", "COp", "Constant", "CType", "EnumList", "EnumType", "Generic", "Op",
           "OpenMPOp", "Params", "ParamsType", "Type", "Variable", "opt", "type", "utils", "MethodNotDefined", "local_optimizer", "optimizer",
           "CLinker", "OpWiseCLinker", "DualLinker", "PerformLinker"]

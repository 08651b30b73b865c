"""theano.gof: the graph, op and type classes, and Theano's linkers over opkit's (opkit.link.theano_linkers).

``CLinker`` is opkit's whole-graph C linker (``Mode(linker="c")``), ``OpWiseCLinker`` its
module-per-node one (``"cop"``), ``PerformLinker`` runs ``perform`` (``"py"``), and
``DualLinker(checker=...)`` runs every node's perform and C side by side and compares them.
Each has Theano's interface, ``CLinker().accept(fgraph).make_function()``, and an instance also
serves as ``opkit.Mode(linker=...)``.
"""

from opkit import (Apply, CDataType, CEnumType, COp, Constant, CType, EnumList, EnumType, Generic, Op, OpenMPOp,
                   Params, ParamsType, Type, Variable)
from opkit.compat.theano.gof import opt, type, utils  # noqa: A004
from opkit.compat.theano.gof.opt import local_optimizer, optimizer
from opkit.compat.theano.gof.utils import MethodNotDefined
from opkit.compat.theano.gof.cc import CLinker, DualLinker, HideC, OpWiseCLinker
from opkit.compat.theano.gof.link import Container, Linker, LocalLinker, PerformLinker, WrapLinker, WrapLinkerMany

__all__ = ["Apply", "CDataType", "CEnumType", "COp", "Constant", "CType", "EnumList", "EnumType", "Generic", "Op",
           "OpenMPOp", "Params", "ParamsType", "Type", "Variable", "opt", "type", "utils", "MethodNotDefined", "local_optimizer", "optimizer",
           "CLinker", "OpWiseCLinker", "DualLinker", "PerformLinker", "HideC", "Container", "Linker", "LocalLinker",
           "WrapLinker", "WrapLinkerMany"]

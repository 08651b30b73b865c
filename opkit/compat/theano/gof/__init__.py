"""theano.gof: the graph, op and type classes, and Theano's linkers over opkit's (opkit.link.theano_linkers).

``CLinker`` is opkit's whole-graph C linker (``Mode(linker="c")``), ``OpWiseCLinker`` its
module-per-node one (``"cop"``), ``PerformLinker`` runs ``perform`` (``"py"``), and
``DualLinker(checker=...)`` runs every node's perform and C side by side and compares them.
Each has Theano's interface, ``CLinker().accept(fgraph).make_function()``, and an instance also
serves as ``opkit.Mode(linker=...)``.
"""

from opkit import (Apply, CDataType, CEnumType, COp, Constant, CType, EnumList, EnumType, Generic, Op, OpenMPOp,
                   Params, ParamsType, Type, Variable)
from opkit.compat.theano.gof import (cc, cmodule, fg, graph, link, null_type, op, opt, params_type,  # noqa: A004
                                     type, utils)
from opkit.compat.theano.gof.cc import CLinker, DualLinker, HideC, OpWiseCLinker
from opkit.compat.theano.gof.fg import FunctionGraph, InconsistencyError
from opkit.compat.theano.gof.graph import view_roots
from opkit.compat.theano.gof.link import Container, Linker, LocalLinker, PerformLinker, WrapLinker, WrapLinkerMany
from opkit.compat.theano.gof.op import CLinkerObject, PureOp
from opkit.compat.theano.gof.opt import inherit_stack_trace, local_optimizer, optimizer
from opkit.compat.theano.gof.type import generic
from opkit.compat.theano.gof.utils import MethodNotDefined, hashtype, object2
from opkit.lazy import lazy_names as _lazy_names

__all__ = ["Apply", "CDataType", "CEnumType", "CLinkerObject", "COp", "Constant", "CType", "EnumList", "EnumType",
           "FunctionGraph", "Generic", "InconsistencyError", "MissingInputError", "Op", "OpenMPOp", "Params",
           "ParamsType", "PureOp", "Type",
           "Variable", "cc", "cmodule", "fg", "generic", "graph", "hashtype", "inherit_stack_trace", "link",
           "local_optimizer", "MethodNotDefined", "null_type", "object2", "op", "opt", "optimizer", "params_type",
           "type", "utils", "view_roots", "CLinker", "OpWiseCLinker", "DualLinker", "PerformLinker", "HideC",
           "Container", "Linker", "LocalLinker", "WrapLinker", "WrapLinkerMany"]
# The names other opkit modules own, resolved on first use.
_LAZY = {"MissingInputError": "opkit.link.function"}
__getattr__, __dir__ = _lazy_names(globals(), _LAZY)


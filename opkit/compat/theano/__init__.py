"""Theano 1.0's names for opkit's: ``import opkit.compat.theano as theano`` is the one line a port changes.

A thin namespace: every name is opkit's own object, re-exported under the module path a Theano
op imports it from (``theano.gof.ParamsType`` is ``opkit.ParamsType``). What is not opkit's
business (rewrite registration, ``theano.tensor.opt``'s decorators) is a documented no-op; what
opkit does not have (``scan``) raises NotImplementedError naming it. docs/porting_theano_ops.md
walks through a port; tests/ported/ is the corpus that keeps this namespace honest.
"""

from opkit import Apply, COp, Constant, Generic, Op, OpenMPOp, Type, Variable, function, grad, shared
from opkit.compat.config import theano_config as config  # opkit's flags; cxx is the compiler found
from opkit.compat.theano import (compat, compile, configdefaults, configparser, gof, gradient, misc,  # noqa: A004
                                 printing, scalar, tensor, tests)
from opkit.compat.theano.compile import SharedVariable
from opkit.compat.theano.gof import (CLinker, Container, DualLinker, FunctionGraph, Linker, LocalLinker,
                                     OpWiseCLinker, PerformLinker, generic)
from opkit.compat.theano.misc.safe_asarray import _asarray
from opkit.lazy import lazy_names as _lazy_names
from opkit.link.mode import Mode
from opkit.link.profiling import ProfileStats
from opkit.tensor import dot

change_flags = config.change_flags  # theano.change_flags(**{"section.flag": value}) as a decorator

# The names other opkit modules own, resolved on first use.
_LAZY = {"In": "opkit.compile.io"}
__getattr__, __dir__ = _lazy_names(globals(), _LAZY)


def scan(*args, **kwargs):
    """Theano's scan: opkit has no loop op; a graph that needs one does not port."""
    raise NotImplementedError("theano.scan: opkit has no scan op (see opkit.compat.theano's docstring)")


__all__ = ["Apply", "COp", "Constant", "Generic", "Op", "OpenMPOp", "Type", "Variable", "config", "function", "grad",
           "shared", "compat", "compile", "configdefaults", "configparser", "gof", "gradient", "misc", "printing",
           "scalar", "tensor", "tests", "Mode", "scan", "SharedVariable", "FunctionGraph", "ProfileStats",
           "_asarray", "dot", "generic", "CLinker", "Container", "DualLinker", "Linker", "LocalLinker",
           "OpWiseCLinker", "PerformLinker", "change_flags"]

"""Theano 1.0's names for opkit's: ``import opkit.compat.theano as theano`` is the one line a port changes.

A thin namespace: every name is opkit's own object, re-exported under the module path a Theano
op imports it from (``theano.gof.ParamsType`` is ``opkit.ParamsType``). What is not opkit's
business (rewrite registration, ``theano.tensor.opt``'s decorators) is a documented no-op; what
opkit does not have (``scan``) raises NotImplementedError naming it. docs/porting_theano_ops.md
walks through a port; tests/ported/ is the corpus that keeps this namespace honest.
"""

from opkit import Apply, COp, Constant, Generic, Op, OpenMPOp, Variable, config, function, grad, shared
from opkit.compat.theano import compile, gof, gradient, printing, scalar, tensor
from opkit.compat.theano.gof import CLinker, DualLinker, OpWiseCLinker, PerformLinker
from opkit.link.mode import Mode

change_flags = config.change_flags  # theano.change_flags(**{"section.flag": value}) as a decorator

def scan(*args, **kwargs):
    """Theano's scan: opkit has no loop op; a graph that needs one does not port."""
    raise NotImplementedError("theano.scan: opkit has no scan op (see opkit.compat.theano's docstring)")


__all__ = ["Apply", "COp", "Constant", "Generic", "Op", "OpenMPOp", "Variable", "config", "function", "grad",
           "shared", "compile", "gof", "gradient", "printing", "scalar", "tensor", "Mode", "scan",
           "CLinker", "DualLinker", "OpWiseCLinker", "PerformLinker", "change_flags"]

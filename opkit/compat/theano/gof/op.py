"""theano.gof.op: the op classes (opkit's). ``PureOp`` is Theano's base of Op without C: opkit's Op.

Theano's test values (``get_test_value``, ``get_debug_values``) have no counterpart: opkit has no
``compute_test_value``.
"""

from opkit import COp, Op, OpenMPOp
from opkit.compat.theano.gof import utils
from opkit.core.clinker import CLinkerObject

PureOp = Op

__all__ = ["CLinkerObject", "COp", "Op", "OpenMPOp", "PureOp", "utils"]

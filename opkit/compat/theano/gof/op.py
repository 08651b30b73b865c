"""theano.gof.op: the op classes (opkit's). ``PureOp`` is Theano's base of Op without C: opkit's Op.

Theano's test values (``get_test_value``, ``get_debug_values``, ``debug_error_message``) are
opkit.compat.theano.gof.test_value's: computed when asked for, not when a node is made.
"""

from opkit import COp, Op, OpenMPOp
from opkit.compat.theano.gof import utils
from opkit.core.clinker import CLinkerObject
from opkit.compat.theano.gof.test_value import debug_error_message, get_debug_values, get_test_value

PureOp = Op

__all__ = ["CLinkerObject", "COp", "Op", "OpenMPOp", "PureOp", "debug_error_message", "get_debug_values",
           "get_test_value", "utils"]

"""theano.compile: function, modes, DebugMode, the built-in ops, shared variables; ``optdb`` is a no-op database.

Submodules at Theano's paths: ``mode``, ``ops``, ``io``, ``debugmode``, ``sharedvalue``, ``pfunc``,
``function_module``. opkit's rewrites are its own; a ported module that registers rewrites into
``optdb`` gets an object whose ``register`` does nothing (the rewrite is not run).
"""

from opkit import as_op, config, function, shared
from opkit.compat.theano.compile import debugmode, io, mode, ops, pfunc as _pfunc_module, sharedvalue
from opkit.compat.theano.compile.debugmode import DebugMode
from opkit.compat.theano.compile.mode import Mode, get_default_mode, get_mode, optdb
from opkit.compat.theano.compile.ops import (DeepCopyOp, Shape, Shape_i, ViewOp, deep_copy_op,
                                             register_deep_copy_op_c_code, register_shape_c_code,
                                             register_shape_i_c_code, register_view_op_c_code, shape, shape_i,
                                             view_op)
from opkit.compat.theano.compile.pfunc import pfunc
from opkit.compat.theano.compile.sharedvalue import SharedVariable
from opkit.lazy import lazy_names as _lazy_names

# The names other opkit modules own, resolved on first use.
_LAZY = {"In": "opkit.compile.io", "MissingInputError": "opkit.link.function",
         "UnusedInputError": "opkit.link.function"}

__all__ = ["DebugMode", "DeepCopyOp", "In", "MissingInputError", "Mode", "Shape", "Shape_i", "SharedVariable",
           "UnusedInputError", "ViewOp", "as_op", "config", "debugmode", "deep_copy_op", "function",
           "get_default_mode", "get_mode", "io", "mode", "optdb", "ops", "pfunc", "register_deep_copy_op_c_code",
           "register_shape_c_code", "register_shape_i_c_code", "register_view_op_c_code", "shape", "shape_i",
           "shared", "sharedvalue", "view_op"]
__getattr__, __dir__ = _lazy_names(globals(), _LAZY)


"""opkit: write numerical ops whose fast path is C.

Every public name is resolved on first use (PEP 562), so `import opkit`
imports neither numpy, nor a compiler toolchain, nor any plugin.
"""

from opkit.config import config as config  # eager: the submodule opkit.config would shadow a lazy name
from opkit.errors import CompileError as CompileError, PluginError as PluginError, SectionError as SectionError
from opkit.errors import MissingModuleError as MissingModuleError
from opkit.config import install_finder as _install_finder
from opkit.lazy import lazy_names as _lazy_names, load as _load, provide as _provide

__version__ = "0.1.0"

# config imports nothing above it: the BLAS its blas__ldflags flag names by default is found by opkit.cop.blas
# when the flag is first read. This package runs before any of its modules (opkit.config included), so the
# finder is in place wherever the flag is read.
# lazy: opkit.cop.blas (a compiler run on a cold machine) only when the flag is read
_install_finder("blas__ldflags", lambda: _load("opkit.cop.blas", "detect_ldflags")())
# core reads a SectionOp's files and renders opkit's C templates with cop's readers, which it may not import:
# named here, they are found on first use whatever was imported first (opkit.core.c_source, opkit.core.c_render).
_provide("c_section_reader", "opkit.cop.source.section_memo", "SectionC")
_provide("c_renderer", "opkit.cop.generate.templates", "render")

TYPE_CHECKING = False
if TYPE_CHECKING:  # the lazy names below, as type checkers and editors should see them (PEP 561: py.typed)
    from opkit import gradient as gradient, printing as printing, scalar as scalar, tensor as tensor
    from opkit import testing as testing
    from opkit.cop.source.cop import COp as COp
    from opkit.core.builtin_ops import register_deep_copy_op_c_code as register_deep_copy_op_c_code
    from opkit.core.builtin_ops import register_shape_c_code as register_shape_c_code
    from opkit.core.builtin_ops import register_shape_i_c_code as register_shape_i_c_code
    from opkit.core.builtin_ops import register_view_op_c_code as register_view_op_c_code
    from opkit.core.gradient import Lop as Lop, Rop as Rop, grad as grad
    from opkit.core.graph import Apply as Apply, Constant as Constant, Variable as Variable
    from opkit.core.op import Op as Op, as_op as as_op
    from opkit.core.shared import SharedVariable as SharedVariable, shared as shared
    from opkit.core.type import CType as CType, Generic as Generic, Type as Type
    from opkit.hookspecs import hookimpl as hookimpl
    from opkit.link.debugmode import DebugMode as DebugMode, DebugModeError as DebugModeError
    from opkit.link.debugmode import BadDestroyMap as BadDestroyMap, BadThunkOutput as BadThunkOutput
    from opkit.link.debugmode import BadViewMap as BadViewMap, InvalidValueError as InvalidValueError
    from opkit.link.function import function as function
    from opkit.link.mode import Mode as Mode
    from opkit.plugins.registry import ops as ops
    from opkit.printing import debugprint as debugprint

_LAZY = {
    "Op": "opkit.core.op",
    "as_op": "opkit.core.op",
    "Apply": "opkit.core.graph",
    "Variable": "opkit.core.graph",
    "Constant": "opkit.core.graph",
    "Type": "opkit.core.type",
    "CType": "opkit.core.type",
    "Generic": "opkit.core.type",
    "function": "opkit.link.function",
    "shared": "opkit.core.shared",
    "SharedVariable": "opkit.core.shared",
    "Mode": "opkit.link.mode",
    "DebugMode": "opkit.link.debugmode",
    "DebugModeError": "opkit.link.debugmode",
    "BadThunkOutput": "opkit.link.debugmode",
    "BadDestroyMap": "opkit.link.debugmode",
    "BadViewMap": "opkit.link.debugmode",
    "InvalidValueError": "opkit.link.debugmode",
    "grad": "opkit.core.gradient",
    "Lop": "opkit.core.gradient",
    "Rop": "opkit.core.gradient",
    "COp": "opkit.cop.source.cop",
    "OpenMPOp": "opkit.cop.toolchain.openmp",
    "ParamsType": "opkit.core.params_type",
    "Params": "opkit.core.params_type",
    "EnumType": "opkit.core.enum_type",
    "EnumList": "opkit.core.enum_type",
    "CEnumType": "opkit.core.enum_type",
    "CDataType": "opkit.core.cdata_type",
    "ops": "opkit.plugins.registry",
    "hookimpl": "opkit.hookspecs",
    "debugprint": "opkit.printing",
    "register_deep_copy_op_c_code": "opkit.core.builtin_ops",
    "register_view_op_c_code": "opkit.core.builtin_ops",
    "register_shape_c_code": "opkit.core.builtin_ops",
    "register_shape_i_c_code": "opkit.core.builtin_ops",
}

# Subpackages reachable as attributes after a bare `import opkit` (`opkit.tensor.matrix()`).
_SUBMODULES = {"tensor": "opkit.tensor", "scalar": "opkit.scalar", "gradient": "opkit.gradient",
               "testing": "opkit.testing", "printing": "opkit.printing"}

__all__ = sorted([*_LAZY, "config", "CompileError", "MissingModuleError", "PluginError", "SectionError"])

# A name from opkit.core comes with opkit.link loaded too: graphs built from it can be evaluated.
__getattr__, __dir__ = _lazy_names(globals(), _LAZY, submodules=_SUBMODULES, listing=__all__,
                                   also={"opkit.core": "opkit.link"})

"""theano.gof.cc: the C linkers (opkit.link.theano_linkers) and ``HideC``.

``CLinker().accept(fgraph).make_function()`` runs the graph as one compiled module,
``OpWiseCLinker`` a module per node, ``DualLinker(checker=...)`` perform and C side by side.
Theano's code-generation helpers (``CodeBlock``, ``failure_code``, ``struct_gen``) are not here:
opkit generates its modules itself, and an op's C fails through ``sub['fail']``.
"""

from opkit.link.lockstep_linkers import DualLinker, OutputMismatch
from opkit.link.theano_linkers import CLinker, CThunk as _CThunk, OpWiseCLinker
from opkit.core.type import MethodNotDefined


def _hide(*args, **kwargs):
    raise MethodNotDefined("c_code", "hidden by HideC")


class HideC:
    """Mix in before an op class to hide its C code: its nodes run perform (Theano's GPU ops hid the CPU C)."""

    c_code = c_code_cleanup = c_headers = c_header_dirs = c_libraries = c_lib_dirs = _hide
    c_support_code = c_support_code_apply = c_compile_args = c_no_compile_args = _hide
    c_init_code = c_init_code_apply = c_init_code_struct = c_support_code_struct = c_cleanup_code_struct = _hide

    def has_c_code(self, node):
        return False

    def c_code_cache_version(self):
        return ()

    def c_code_cache_version_apply(self, node):
        return self.c_code_cache_version()


__all__ = ["CLinker", "DualLinker", "HideC", "OpWiseCLinker", "OutputMismatch", "_CThunk"]

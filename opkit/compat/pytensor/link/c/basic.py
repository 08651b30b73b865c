"""pytensor.link.c.basic: ``CLinker``, ``OpWiseCLinker``, ``DualLinker`` (opkit.link.theano_linkers).

``CLinker().accept(fgraph).make_thunk()`` returns ``(thunk, input_containers, output_containers)``;
tests/link/test_link.py's ``make_function(linker)`` runs on it. PyTensor's code-generation
helpers (``CodeBlock``, ``failure_code``, ``struct_gen``) are not here: opkit generates its
modules itself, and an op's C fails through ``sub['fail']``.
"""

from opkit.link.lockstep_linkers import DualLinker
from opkit.link.theano_linkers import CLinker, CThunk as _CThunk, OpWiseCLinker

__all__ = ["CLinker", "DualLinker", "OpWiseCLinker", "_CThunk"]

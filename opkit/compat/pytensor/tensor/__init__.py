"""pytensor.tensor: opkit.tensor's names, and those a port imports that opkit.tensor spells otherwise or lacks.

Its submodules (``type``, ``math``, ``basic``, ``variable``, ``type_other``) are the paths PyTensor
code imports the same names from.

- ``join(axis, *tensors)`` is ``opkit.tensor.concatenate(tensors, axis)``; ``flip(x, axis=None)`` is
  a reversing slice; ``zeros``, ``as_tensor_variable`` are opkit.tensor's.
- ``Blockwise(core_op)`` is not vectorization: opkit has no Blockwise. Called on inputs of the core
  op's own ranks it is the core op; inputs with batch axes raise NotImplementedError naming it.
- ``pad`` raises NotImplementedError: opkit has no Pad op.
"""

from opkit.compat.pytensor.tensor._namespace import *  # noqa: F403
from opkit.compat.pytensor.tensor._namespace import __all__  # noqa: F401

# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=(
    "opkit.tensor", "opkit.compat.pytensor.tensor.basic", "opkit.compat.pytensor.tensor.math",
    "opkit.compat.pytensor.tensor.type", "opkit.compat.pytensor.tensor.type_other",
    "opkit.compat.pytensor.tensor.subtensor", "opkit.compat.pytensor.tensor.shape",
    "opkit.compat.pytensor.tensor.extra_ops"))

# Submodules named as functions: as in PyTensor, the module loads first and the function keeps the package's
# name (else importing pytensor.tensor.shape or .sort would put the module where pt.shape / pt.sort are).
# (imported by their full names: `from . import sort` would find opkit.tensor's sort through __getattr__)
import opkit.compat.pytensor.tensor.shape as _shape_module  # noqa: E402
import opkit.compat.pytensor.tensor.sort as _sort_module  # noqa: E402

del _shape_module, _sort_module
for _module in ("shape", "sort"):
    globals().pop(_module, None)  # opkit.tensor's function, through __getattr__

"""PyTensor names that opkit's own modules do not carry, for ports of PyTensor ops.

A PyTensor op ports to opkit's modules directly (``pytensor.link.c.op`` -> ``opkit``); the few
names with no opkit home live in this package: ``DenseTensorType`` (opkit's TensorType is dense),
``_vectorize_node`` (opkit.compat.pytensor.graph.replace, PyTensor's home of it) and
``lazy_scipy_module`` (opkit.compat.pytensor.utils, its home); ``opkit.compat.pytensor.scalar``
is ``pytensor.scalar.basic`` for a port's multi-name import (opkit.scalar plus ``constant``, ``identity``).
"""

from opkit.lazy import lazy_names as _lazy_names
from opkit.tensor import TensorType as DenseTensorType

# `import opkit.compat.pytensor as pytensor`: pytensor.function, pytensor.shared... and the subpackages
# (pytensor.graph.op.Op, pytensor.tensor.constant), each imported on first use; pytensor.grad and
# pytensor.gradient are opkit.gradient's names.
_NAMES = {"function": "opkit.compat.pytensor.compile", "shared": "opkit.compat.pytensor.compile",
          "In": "opkit.compat.pytensor.compile", "Out": "opkit.compat.pytensor.compile",
          "Mode": "opkit.compat.pytensor.compile", "get_mode": "opkit.compat.pytensor.compile",
          "config": "opkit.compat.pytensor.configdefaults", "dprint": "opkit.compat.pytensor.printing",
          "_vectorize_node": "opkit.compat.pytensor.graph.replace",
          "lazy_scipy_module": "opkit.compat.pytensor.utils", "grad": "opkit.compat.pytensor.gradient"}
_SUBMODULES = {"compile": "opkit.compat.pytensor.compile", "configdefaults": "opkit.compat.pytensor.configdefaults",
               "graph": "opkit.compat.pytensor.graph", "gradient": "opkit.compat.pytensor.gradient",
               "link": "opkit.compat.pytensor.link", "printing": "opkit.compat.pytensor.printing",
               "scalar": "opkit.compat.pytensor.scalar", "tensor": "opkit.compat.pytensor.tensor",
               "utils": "opkit.compat.pytensor.utils"}
__getattr__, __dir__ = _lazy_names(globals(), _NAMES, submodules=_SUBMODULES)

__all__ = ["DenseTensorType", *(name for name in _NAMES if name != "grad")]

"""PyTensor names that opkit's own modules do not carry, for ports of PyTensor ops.

A PyTensor op ports to opkit's modules directly (``pytensor.link.c.op`` -> ``opkit``); the few
names with no opkit home live here: ``_vectorize_node`` (PyTensor's vectorization dispatch; its
``register`` keeps the function and opkit never calls it: opkit has no Blockwise vectorization)
``DenseTensorType`` (opkit's TensorType is dense) and ``lazy_scipy_module``; ``opkit.compat.pytensor.scalar``
is ``pytensor.scalar.basic`` for a port's multi-name import (opkit.scalar plus ``constant``, ``identity``).
"""

import functools
import importlib

from opkit.tensor import TensorType as DenseTensorType


@functools.singledispatch
def _vectorize_node(op, node, *batched_inputs):
    """PyTensor's vectorization hook: opkit does not vectorize graphs; registrations are kept, not run."""
    raise NotImplementedError(f"opkit does not vectorize {op}: it has no Blockwise")


def lazy_scipy_module(name):
    """PyTensor's ``lazy_scipy_module("special")``: here ``scipy.special`` itself, imported on the call."""
    return importlib.import_module(f"scipy.{name}")


# `import opkit.compat.pytensor as pytensor`: pytensor.function, pytensor.shared... and the subpackages
# (pytensor.graph.op.Op, pytensor.tensor.constant), each imported on first use.
_NAMES = {"function": "compile", "shared": "compile", "In": "compile", "Out": "compile", "Mode": "compile",
          "get_mode": "compile", "config": "configdefaults", "dprint": "printing"}
_SUBMODULES = ("compile", "configdefaults", "graph", "link", "printing", "scalar", "tensor", "utils")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DenseTensorType", "_vectorize_node", "lazy_scipy_module", *_NAMES]

# pytensor.grad and pytensor.gradient (opkit.gradient's names).
_NAMES["grad"] = "gradient"
_SUBMODULES += ("gradient",)

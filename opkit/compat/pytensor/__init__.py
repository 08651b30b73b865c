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


__all__ = ["DenseTensorType", "_vectorize_node", "lazy_scipy_module"]

"""PyTensor names that opkit's own modules do not carry, for ports of PyTensor ops.

A PyTensor op ports to opkit's modules directly (``pytensor.link.c.op`` -> ``opkit``); the few
names with no opkit home live here: ``_vectorize_node`` (PyTensor's vectorization dispatch; its
``register`` keeps the function and opkit never calls it: opkit has no Blockwise vectorization)
and ``DenseTensorType`` (opkit's TensorType is dense).
"""

import functools

from opkit.tensor import TensorType as DenseTensorType


@functools.singledispatch
def _vectorize_node(op, node, *batched_inputs):
    """PyTensor's vectorization hook: opkit does not vectorize graphs; registrations are kept, not run."""
    raise NotImplementedError(f"opkit does not vectorize {op}: it has no Blockwise")


__all__ = ["DenseTensorType", "_vectorize_node"]

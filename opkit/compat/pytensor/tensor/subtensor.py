"""pytensor.tensor.subtensor: ``Subtensor``, ``IncSubtensor``, ``set_subtensor``, ``inc_subtensor`` (opkit's) and
``flip``. opkit has no advanced (integer-array) indexing."""

from opkit.compat.pytensor.tensor import flip
from opkit.tensor import IncSubtensor, Subtensor, inc_subtensor, set_subtensor

__all__ = ["IncSubtensor", "Subtensor", "flip", "inc_subtensor", "set_subtensor"]

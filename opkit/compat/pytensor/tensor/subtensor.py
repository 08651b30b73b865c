"""pytensor.tensor.subtensor: ``Subtensor``, ``IncSubtensor``, ``set_subtensor``, ``inc_subtensor`` (opkit's) and
``flip``. opkit has no advanced (integer-array) indexing."""

from opkit.compat.pytensor.tensor import flip
from opkit.tensor import IncSubtensor, Subtensor, inc_subtensor, set_subtensor

__all__ = ["IncSubtensor", "Subtensor", "flip", "inc_subtensor", "set_subtensor"]


# PyTensor's other names here, from opkit.tensor on first use (issue 48's functions as they land).
from opkit.compat.pytensor.tensor._from_opkit_tensor import getattr_from_opkit_tensor as _from_tensor  # noqa: E402

__getattr__ = _from_tensor(__name__, (
    "take", "slice_at_axis", "AdvancedSubtensor", "AdvancedSubtensor1", "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1", "advanced_subtensor", "advanced_subtensor1", "advanced_inc_subtensor",
    "advanced_inc_subtensor1", "advanced_set_subtensor", "advanced_set_subtensor1"
))

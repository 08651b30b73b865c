"""theano.tensor.subtensor: opkit's Subtensor, IncSubtensor, set_subtensor, inc_subtensor.

Theano's advanced-indexing ops are not opkit's: ``AdvancedSubtensor``, ``AdvancedSubtensor1``,
``AdvancedIncSubtensor`` and ``AdvancedIncSubtensor1`` are names only (classes no node is ever an
instance of), so that a ported rewrite's ``isinstance`` test reads false.
"""

from opkit.tensor import IncSubtensor, Subtensor, inc_subtensor, set_subtensor


class AdvancedSubtensor:
    """Not in opkit: no node is an instance."""


class AdvancedSubtensor1(AdvancedSubtensor):
    """Not in opkit: no node is an instance."""


class AdvancedIncSubtensor:
    """Not in opkit: no node is an instance."""


class AdvancedIncSubtensor1(AdvancedIncSubtensor):
    """Not in opkit: no node is an instance."""


__all__ = ["AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1",
           "IncSubtensor", "Subtensor", "inc_subtensor", "set_subtensor"]


# Theano's other names here, from opkit.tensor on first use (issue 48's functions as they land).
from opkit.compat.pytensor.tensor._from_opkit_tensor import getattr_from_opkit_tensor as _from_tensor  # noqa: E402

__getattr__ = _from_tensor(__name__, (
    "take", "AdvancedSubtensor", "AdvancedSubtensor1", "AdvancedIncSubtensor", "AdvancedIncSubtensor1",
    "advanced_subtensor", "advanced_subtensor1", "advanced_inc_subtensor", "advanced_inc_subtensor1",
    "advanced_set_subtensor", "advanced_set_subtensor1"
))

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

"""theano.tensor.subtensor: opkit's Subtensor. Theano's advanced-indexing ops are not opkit's.

``AdvancedSubtensor``, ``AdvancedIncSubtensor`` and ``IncSubtensor`` are names only (classes no
node is ever an instance of), so that a ported rewrite's ``isinstance`` test reads false.
"""

from opkit.tensor import Subtensor


class AdvancedSubtensor:
    """Not in opkit: no node is an instance."""


class AdvancedSubtensor1(AdvancedSubtensor):
    """Not in opkit: no node is an instance."""


class IncSubtensor:
    """Not in opkit: no node is an instance."""


class AdvancedIncSubtensor(IncSubtensor):
    """Not in opkit: no node is an instance."""


class AdvancedIncSubtensor1(IncSubtensor):
    """Not in opkit: no node is an instance."""


__all__ = ["AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1",
           "IncSubtensor", "Subtensor"]

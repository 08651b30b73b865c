"""theano.tensor.subtensor: opkit's Subtensor, IncSubtensor, the advanced indexing ops (AdvancedSubtensor1,
AdvancedSubtensor, AdvancedIncSubtensor1, AdvancedIncSubtensor), set_subtensor and inc_subtensor."""

from opkit.tensor import (AdvancedIncSubtensor, AdvancedIncSubtensor1, AdvancedSubtensor, AdvancedSubtensor1,
                          IncSubtensor, Subtensor, inc_subtensor, set_subtensor)

__all__ = ["AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1",
           "IncSubtensor", "Subtensor", "inc_subtensor", "set_subtensor"]

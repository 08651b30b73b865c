"""theano.tensor.subtensor: opkit's Subtensor, IncSubtensor, the advanced indexing ops (AdvancedSubtensor1,
AdvancedSubtensor, AdvancedIncSubtensor1, AdvancedIncSubtensor), set_subtensor, inc_subtensor, the advanced
functions, and Theano's boolean-index functions (``advanced_boolean_subtensor(x, mask)``...: opkit's advanced
indexing reads a mask as numpy does)."""

from opkit.tensor import (AdvancedIncSubtensor, AdvancedIncSubtensor1, AdvancedSubtensor, AdvancedSubtensor1,
                          IncSubtensor, Subtensor, advanced_inc_subtensor, advanced_inc_subtensor1,
                          advanced_set_subtensor, advanced_set_subtensor1, advanced_subtensor, advanced_subtensor1,
                          inc_subtensor, set_subtensor)


def advanced_boolean_subtensor(x, *index):
    """Theano's x[index] with boolean masks among the index's entries."""
    return advanced_subtensor(x, *index)


def advanced_boolean_inc_subtensor(x, y, *index):
    """Theano's x with y added at x[index] (boolean masks among the index's entries)."""
    return advanced_inc_subtensor(x, y, *index)


def advanced_boolean_set_subtensor(x, y, *index):
    """Theano's x with x[index] set to y (boolean masks among the index's entries)."""
    return advanced_set_subtensor(x, y, *index)


__all__ = ["AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1",
           "IncSubtensor", "Subtensor", "advanced_boolean_inc_subtensor", "advanced_boolean_set_subtensor",
           "advanced_boolean_subtensor", "advanced_inc_subtensor", "advanced_inc_subtensor1", "advanced_set_subtensor",
           "advanced_set_subtensor1", "advanced_subtensor", "advanced_subtensor1", "inc_subtensor", "set_subtensor"]

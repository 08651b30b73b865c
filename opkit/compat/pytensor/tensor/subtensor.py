"""pytensor.tensor.subtensor: opkit's indexing ops (``Subtensor``, ``IncSubtensor``, the advanced ones), their
functions (``set_subtensor``, ``inc_subtensor``, ``advanced_subtensor1``, ``advanced_inc_subtensor``...),
``take_along_axis``, ``take``, ``slice_at_axis`` and ``flip``."""

from opkit.compat.pytensor.tensor._namespace import flip
from opkit.tensor import (AdvancedIncSubtensor, AdvancedIncSubtensor1, AdvancedSubtensor, AdvancedSubtensor1,
                          IncSubtensor, Subtensor, advanced_inc_subtensor, advanced_inc_subtensor1,
                          advanced_set_subtensor, advanced_set_subtensor1, advanced_subtensor, advanced_subtensor1,
                          inc_subtensor, set_subtensor, slice_at_axis, take, take_along_axis)

__all__ = ["AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1",
           "IncSubtensor", "Subtensor", "advanced_inc_subtensor", "advanced_inc_subtensor1", "advanced_set_subtensor",
           "advanced_set_subtensor1", "advanced_subtensor", "advanced_subtensor1", "flip", "inc_subtensor",
           "set_subtensor", "slice_at_axis", "take", "take_along_axis"]

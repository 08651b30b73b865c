"""pytensor.tensor.type_other: ``NoneConst``, the constant None (an absent optional input of an op)."""

from opkit.core.graph import Constant
from opkit.core.type import Generic


class NoneTypeT(Generic):
    """The type of the value None alone."""

    def filter(self, value, strict=False, allow_downcast=None):
        if value is not None:
            raise TypeError(f"expected None, got {value!r}")
        return value

    def is_valid_value(self, value):
        return value is None

    def __str__(self):
        return "None"


none_type_t = NoneTypeT()
NoneConst = Constant(none_type_t, None, name="NoneConst")

__all__ = ["NoneConst", "NoneTypeT", "none_type_t"]

"""A COp whose pickle, made by an earlier opkit, is kept in tests/data/cop/checked_sqrt_op.pickle.

tests/cop/test_old_pickles.py loads it: a change to what a COp's state holds (its parsed
sections) must still read the pickles users already have.
"""

import opkit
from opkit.tensor import TensorType


class PickledSqrt(opkit.COp):
    """sqrt of a float vector, from tests/data/cop/checked_sqrt.c."""

    __props__ = ()

    def __init__(self):
        super().__init__("../data/cop/checked_sqrt.c")

    def make_node(self, x):
        return opkit.Apply(self, [x], [TensorType(x.dtype, (None,))()])

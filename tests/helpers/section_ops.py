"""_times_op(c_file): a COp class reading the tutorial's vector_times_vector from `c_file` (tests/reach)."""

import opkit


def _times_op(c_file):
    class VectorOp(opkit.COp):
        __props__ = ()

        def __init__(self):
            super().__init__(str(c_file), "APPLY_SPECIFIC(vector_times_vector)")

        def make_node(self, x, y):
            return opkit.Apply(self, [x, y], [x.type()])

    return VectorOp

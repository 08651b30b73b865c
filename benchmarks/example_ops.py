"""The op the bridge figures run: the tutorial's VectorTimesVector (examples/vector_times_vector, C code).

tests/helpers/tutorial_ops.py hands the same op to the bridge tests.
"""

from __future__ import annotations

import pathlib
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "vector_times_vector"


def shaped_vector_times_vector():
    """Return VectorTimesVector with infer_shape, and a grad that applies the op again (gradient nodes bridge too)."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        from vector_times_vector.op import VectorTimesVector
    finally:
        sys.path.remove(str(EXAMPLE))

    class ShapedVectorTimesVector(VectorTimesVector):
        def infer_shape(self, node, input_shapes):
            return [input_shapes[0]]

        def grad(self, inputs, output_grads):
            x, y = inputs
            (g,) = output_grads
            return [self(g, y), self(g, x)]

    return ShapedVectorTimesVector()

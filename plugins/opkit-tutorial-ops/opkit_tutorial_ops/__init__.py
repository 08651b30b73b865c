"""The opkit tutorials' ops as an op package: VectorTimesScalar, the double type in C, DoubleOp."""

from opkit_tutorial_ops.double import Double, add, div, double, mul, sub
from opkit_tutorial_ops.double_op import DoubleOp
from opkit_tutorial_ops.vector_times_scalar import VectorTimesScalar

__all__ = ["Double", "DoubleOp", "VectorTimesScalar", "add", "div", "double", "mul", "sub"]

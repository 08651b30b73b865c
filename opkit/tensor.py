"""opkit.tensor: n-d array types, variables and the built-in tensor operations."""

import opkit.link  # noqa: F401  (lets Variable.eval run graphs)

from opkit.core.gradient import Lop, Rop, grad
from opkit.core.tensor.basic import (Dot, Sum, add, dot, exp, log, maximum, mul, neg, pow, sqr, sqrt, sub,
                                     sum, true_div, upcast)
from opkit.core.tensor.constructors import matrix, scalar, tensor, tensor3, tensor4, vector
from opkit.core.tensor.elemwise import Elemwise
from opkit.core.tensor.shape_ops import shape
from opkit.core.tensor.type import TensorType, named_types
from opkit.core.tensor.variable import TensorConstant, TensorVariable, as_tensor_variable, constant

globals().update(named_types())

__all__ = [
    "TensorType", "TensorVariable", "TensorConstant", "Elemwise", "Sum", "Dot",
    "as_tensor_variable", "constant", "upcast", "tensor",
    "scalar", "vector", "matrix", "tensor3", "tensor4",
    "add", "sub", "mul", "true_div", "neg", "exp", "log", "sqr", "sqrt", "maximum", "pow",
    "sum", "dot", "shape", "grad", "Lop", "Rop", *named_types(),
]

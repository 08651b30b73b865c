"""theano.tensor.elemwise: opkit's Elemwise, DimShuffle and reductions."""

from opkit.tensor import (DimShuffle, Elemwise, Max, Min, Prod, Sum, TensorConstant, TensorType, TensorVariable,
                          as_tensor_variable)

CAReduce = (Sum, Prod, Max, Min)  # Theano's base class of reductions; here the tuple of opkit's, for isinstance

__all__ = ["CAReduce", "DimShuffle", "Elemwise", "Max", "Min", "Prod", "Sum", "TensorConstant", "TensorType",
           "TensorVariable", "as_tensor_variable"]

"""A PyTensor op with parameters, its C code in an external #section file."""

import opkit.tensor as pt
from opkit import Apply
from opkit import COp
from opkit import ParamsType
from opkit import EnumList
from opkit.scalar import float64


class Axpy(COp):
    """z = alpha * x + y (mode ADD) or alpha * x * y (mode MUL), elementwise on vectors."""

    __props__ = ("alpha", "mode")
    params_type = ParamsType(alpha=float64, mode=EnumList("ADD", "MUL"))

    def __init__(self, alpha, mode=0):
        self.alpha = alpha
        self.mode = mode
        super().__init__("axpy_params.c")

    def make_node(self, x, y):
        x = pt.as_tensor_variable(x)
        y = pt.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage, params):
        x, y = inputs
        if params.mode == Axpy.params_type.MUL:
            output_storage[0][0] = params.alpha * x * y
        else:
            output_storage[0][0] = params.alpha * x + y

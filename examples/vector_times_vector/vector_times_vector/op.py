"""The tutorial's VectorTimesVector, with its C code in vectorTimesVector.c ("Extending Theano with a C Op")."""

import opkit
import opkit.tensor


class VectorTimesVector(opkit.COp):
    """Multiply two 1-d vectors elementwise; the output dtype is the inputs' upcast."""

    __props__ = ()

    func_file = "./vectorTimesVector.c"
    func_name = "APPLY_SPECIFIC(vector_times_vector)"

    def __init__(self):
        super().__init__(self.func_file, self.func_name)

    def make_node(self, x, y):
        # Validate the inputs' type
        if x.type.ndim != 1:
            raise TypeError('x must be a 1-d vector')
        if y.type.ndim != 1:
            raise TypeError('y must be a 1-d vector')

        # Create an output variable of the same type as x
        output_var = opkit.tensor.TensorType(
                        dtype=opkit.tensor.upcast(x.dtype, y.dtype),
                        broadcastable=[False])()

        return opkit.Apply(self, [x, y], [output_var])

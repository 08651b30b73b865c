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
        # Not in the tutorial: its C multiplies DTYPE_ values, and a float16's is npy_half,
        # an integer holding the bits, so float16 would give wrong numbers without an error.
        if 'float16' in (x.dtype, y.dtype):
            raise TypeError("VectorTimesVector's C code does not handle float16 (npy_half holds the bits, "
                            f"not a number); got {x.type} and {y.type}: cast to float32 first")

        # Create an output variable of the same type as x
        output_var = opkit.tensor.TensorType(
                        dtype=opkit.tensor.upcast(x.dtype, y.dtype),
                        broadcastable=[False])()

        return opkit.Apply(self, [x, y], [output_var])

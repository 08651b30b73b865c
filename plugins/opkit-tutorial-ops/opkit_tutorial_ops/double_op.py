"""DoubleOp from "Creating a new Op: Python implementation": doubles a tensor, in Python."""

import opkit
import opkit.tensor


class DoubleOp(opkit.Op):
    """Double each element of a tensor."""

    __props__ = ()

    def make_node(self, x):
        # check that the opkit version has support for __props__
        assert hasattr(self, '_props')
        x = opkit.tensor.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        # R_op can receive None as eval_points.
        # That mean there is no diferientiable path through that input
        # If this imply that you cannot compute some outputs,
        # return None for those.
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)

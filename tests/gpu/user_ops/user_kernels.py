"""User ops as an op author writes them for the GPU: a COp whose .c file holds host `code` and CUDA `kernels`,
GpuArrayType inputs and outputs, a perform for DebugMode, a gradient that is a graph of GPU values."""

import os

import opkit
import opkit.tensor as ot
from opkit.gpu import GpuArrayType, to_gpu, to_host

HERE = os.path.dirname(os.path.abspath(__file__))


def _on_gpu(value):
    return to_gpu(value)


class Axpy(opkit.COp):
    """z = a * x + y: `a` a 0-d GPU array, `x` and `y` GPU vectors of one dtype."""

    __props__ = ()

    def __init__(self):
        super().__init__(os.path.join(HERE, "axpy.c"))

    def make_node(self, a, x, y):
        a, x, y = _on_gpu(a), _on_gpu(x), _on_gpu(y)
        dtypes = {a.type.dtype, x.type.dtype, y.type.dtype}
        if len(dtypes) != 1 or a.type.ndim != 0 or x.type.ndim != 1 or y.type.ndim != 1:
            raise TypeError(f"Axpy takes a 0-d a and vectors x, y of one dtype, got {a.type}, {x.type}, {y.type}")
        return opkit.Apply(self, [a, x, y], [GpuArrayType(x.type.dtype, (None,))()])

    def perform(self, node, inputs, output_storage):
        a, x, y = inputs
        output_storage[0][0] = (a * x + y).astype(node.outputs[0].type.dtype)

    def infer_shape(self, node, input_shapes):
        return [input_shapes[1]]

    def grad(self, inputs, output_grads):
        a, x, _ = inputs
        (gz,) = output_grads
        return [(gz * x).sum(), gz * a, gz]


class BlockSum(opkit.COp):
    """The sum of a GPU vector (same dtype), by one block's shared-memory tree reduction."""

    __props__ = ()

    def __init__(self):
        super().__init__(os.path.join(HERE, "block_sum.c"))

    def make_node(self, x):
        x = _on_gpu(x)
        return opkit.Apply(self, [x], [GpuArrayType(x.type.dtype, ())()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x.sum(dtype=x.dtype, keepdims=True).reshape(())  # a 0-d array, not a scalar

    def infer_shape(self, node, input_shapes):
        return [()]

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        return [to_gpu(ot.ones_like(to_host(x)) * to_host(gz))]  # gz on each element, moved by placement


class BadLaunch(opkit.COp):
    """A copy whose host code launches 4096 threads per block: the launch fails."""

    __props__ = ()

    def __init__(self):
        super().__init__(os.path.join(HERE, "bad_launch.c"))

    def make_node(self, x):
        x = _on_gpu(x)
        return opkit.Apply(self, [x], [x.type()])


axpy = Axpy()
block_sum = BlockSum()

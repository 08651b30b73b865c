"""Small ops with `#section kernels` for the NVRTC and kernels-section tests (no GPU needed to compile them)."""

import os

import opkit
import opkit.tensor as ot

HERE = os.path.dirname(os.path.abspath(__file__))


class Axpy(opkit.COp):
    """y = a * x, from axpy.c's kernels (a scalar `a`, a vector `x`); `c_file` picks another file."""

    __props__ = ("c_file",)

    def __init__(self, c_file=os.path.join(HERE, "axpy.c")):
        self.c_file = str(c_file)
        super().__init__(self.c_file)

    def make_node(self, a, x):
        a, x = ot.as_tensor_variable(a), ot.as_tensor_variable(x)
        return opkit.Apply(self, [a, x], [x.type()])


class MethodKernels(opkit.Op):
    """An op whose kernels come from a c_kernels(node, name) method, not a file."""

    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2

    def c_kernels(self, node, name):
        return ('extern "C" __global__ void APPLY_SPECIFIC(twice)(long n, const DTYPE_INPUT_0* x, '
                'DTYPE_OUTPUT_0* y)\n{\n    long i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                '    if (i < n) y[i] = 2 * x[i];\n}\n')


def axpy_node(a_dtype="float64", x_dtype="float64", c_file=None):
    """Return an Axpy node on a scalar of `a_dtype` and a vector of `x_dtype`."""
    op = Axpy() if c_file is None else Axpy(c_file)
    return op(ot.scalar("a", dtype=a_dtype), ot.vector("x", dtype=x_dtype)).owner


class Unary(opkit.COp):
    """y = f(x) elementwise, from `c_file` (copy.c's kernels; twice_cpu.c's CPU code and kernels)."""

    __props__ = ("c_file",)

    def __init__(self, c_file):
        self.c_file = str(c_file)
        super().__init__(self.c_file)

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return opkit.Apply(self, [x], [x.type()])


def unary_node(c_file, dtype="float64"):
    """Return a Unary node of `c_file` on a vector of `dtype`."""
    return Unary(os.path.join(HERE, c_file) if not os.path.isabs(str(c_file)) else c_file)(
        ot.vector("x", dtype=dtype)).owner

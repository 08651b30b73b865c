"""The GPU version of Dot (numpy.dot of vectors and matrices): cuBLAS through CuPy's matmul on CuPy arrays,
numpy's dot in the CPU interpreter (device="cuda-interpret", where GPU values are numpy arrays)."""

from __future__ import annotations

import numpy as np

from opkit.core.gradient import Lop
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.elementwise.basic import dot, upcast
from opkit.gpu.ops.elemwise import array_module, gpu_input
from opkit.gpu.transfers import GpuArrayType, to_gpu, to_host

# cuBLAS computes float32 and float64 products (CuPy keeps TF32 off unless CUPY_TF32=1). Integer and bool
# products (CuPy's own kernel) and float16 (another accumulation than numpy's) stay on the host.
DOT_DTYPES = frozenset(["float32", "float64"])


class GpuDot(Op):
    """numpy.dot of GPU vectors and matrices (the host Dot's shapes and dtypes)."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = gpu_input(x, self), gpu_input(y, self)
        xs, ys = x.type.shape, y.type.shape
        if len(xs) not in (1, 2) or len(ys) not in (1, 2):
            raise TypeError(f"dot takes vectors and matrices, got {len(xs)}-d and {len(ys)}-d")
        if xs[-1] is not None and ys[0] is not None and xs[-1] != ys[0]:
            raise ValueError(f"dot: shapes {xs} and {ys} are not aligned")
        dtype = upcast(x.type.dtype, y.type.dtype)
        if dtype not in DOT_DTYPES:
            raise TypeError(f"{self} has no GPU version for dtype {dtype}")
        return Apply(self, [x, y], [GpuArrayType(dtype, xs[:-1] + ys[1:])()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        xp = array_module(inputs)
        dtype = node.outputs[0].type.dtype
        if x.shape[-1] != y.shape[0]:
            raise ValueError(f"shapes {x.shape} and {y.shape} not aligned: {x.shape[-1]} (dim {x.ndim - 1}) "
                             f"!= {y.shape[0]} (dim 0)")
        if xp is np:
            result = np.dot(x, y)
        else:
            result = xp.matmul(x.astype(dtype, copy=False), y.astype(dtype, copy=False))
        output_storage[0][0] = xp.asarray(result, dtype=dtype)

    def infer_shape(self, node, input_shapes):
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def grad(self, inputs, output_grads):
        """The host Dot's gradient, moved to the GPU."""
        host = [to_host(v) for v in inputs]
        return [to_gpu(g) for g in Lop(dot(*host), host, to_host(output_grads[0]))]

    def __str__(self):
        return "GpuDot"


gpu_dot = GpuDot()

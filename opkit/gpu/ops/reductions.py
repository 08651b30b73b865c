"""The GPU reductions sum, max, min and mean over `axis` (None, an int, a tuple) with `keepdims`.

A `GpuReduce` node reduces one GpuArrayType input with numpy's result dtypes (reduction.result_dtype: the sum of
bool and small integers is int64 or uint64, the mean of integers float64). Its kernel
(opkit/templates/gpu_ops/reduce.cu.j2) gives each output element a block (or, for few outputs of many elements,
each run of an output's elements a block, and a second pass over the runs' results): the threads stride over
the reduced elements, then combine in __shared__ memory with __syncthreads. float16 and complex stay on the host.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import SectionOp, render
from opkit.core.graph import Apply
from opkit.gpu.ops.elemwise import GPU_DTYPES, KERNEL_OPTIONS, MAX_NDIM, array_module, gpu_input

TEMPLATE = "gpu_ops/reduce.cu.j2"
KINDS = ("sum", "max", "min", "mean")
BLOCK = 256  # the most threads a reduction's block has
_EMPTY = {"max": "zero-size array to reduction operation maximum which has no identity",
          "min": "zero-size array to reduction operation minimum which has no identity"}


def gpu_reduce_ok(kind, dtype, ndim):
    """Return True if a GPU kernel computes numpy's `kind` reduction of an array of `dtype` and rank `ndim`."""
    return kind in KINDS and str(np.dtype(dtype)) in GPU_DTYPES and ndim <= MAX_NDIM


def accumulator(kind, dtype):
    """The dtype a reduction keeps its partial results in: see reduce.cu.j2."""
    if kind in ("max", "min"):
        return str(np.dtype(dtype))
    if kind == "sum" and np.dtype(dtype).kind in "biu":
        return "uint64"
    return "float64"


class GpuReduce(SectionOp):
    """Reduction `kind` (sum, max, min, mean) of a GPU array over `axis` (None: every axis)."""

    section_files = ("../../core/tensor/elementwise/broadcast.c", "gpu_walk.c")

    __props__ = ("kind", "axis", "keepdims")

    def __init__(self, kind, axis=None, keepdims=False):
        if kind not in KINDS:
            raise ValueError(f"GpuReduce: unknown reduction {kind!r}; choose one of {', '.join(KINDS)}")
        self.kind = kind
        if axis is not None:
            axis = tuple(sorted(int(a) for a in (axis if isinstance(axis, (tuple, list)) else [axis])))
        self.axis = axis
        self.keepdims = bool(keepdims)

    def _axes(self, ndim):
        from opkit.core.tensor.reductions.reduction import normalize_axis

        return normalize_axis(self.axis, ndim, self.kind)

    def make_node(self, x):
        from opkit.core.tensor.reductions.reduction import reduced_shape, result_dtype
        from opkit.gpu.transfers import GpuArrayType

        x = gpu_input(x, self)
        ndim = len(x.type.shape)
        if not gpu_reduce_ok(self.kind, x.type.dtype, ndim):
            raise TypeError(f"{self} has no GPU kernel for a {ndim}-d input of dtype {x.type.dtype}")
        shape = reduced_shape(x.type.shape, self._axes(ndim), self.keepdims)
        return Apply(self, [x], [GpuArrayType(result_dtype(self.kind, x.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        from opkit.core.tensor.reductions.reduction import numpy_reduction

        x, = inputs
        xp = array_module(inputs)
        axes = self._axes(x.ndim)
        if xp is np:
            result = numpy_reduction(self.kind, x, axes, self.keepdims)
        else:
            if self.kind in _EMPTY and x.size == 0 and any(x.shape[a] == 0 for a in axes):
                raise ValueError(_EMPTY[self.kind])
            result = getattr(xp, self.kind)(x, axis=axes, keepdims=self.keepdims)
        output_storage[0][0] = xp.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, node, input_shapes):
        from opkit.core.tensor.reductions.reduction import reduced_shape

        return [reduced_shape(input_shapes[0], self._axes(len(input_shapes[0])), self.keepdims)]

    def grad(self, inputs, output_grads):
        """The host reduction's gradient, moved to the GPU."""
        from opkit.core.gradient import Lop
        from opkit.core.tensor.reductions.reduction import Max, Mean, Min, Sum
        from opkit.gpu.transfers import to_gpu, to_host

        host_op = {"sum": Sum, "max": Max, "min": Min, "mean": Mean}[self.kind](self.axis, self.keepdims)
        x = to_host(inputs[0])
        g, = Lop(host_op(x), [x], to_host(output_grads[0]))
        return [to_gpu(g)]

    # ---- C ----

    def has_c_code(self, node):
        return True

    def c_support_code(self):
        from opkit.gpu.ops.elemwise import TEMPLATE as EW

        found = super().c_support_code()
        return [render(EW, "indexer"), *([found] if isinstance(found, str) else list(found or ()))]

    def c_code(self, node, name, inputs, outputs, sub):
        from opkit.core.tensor.types.c_interface import c_typenum

        nd = len(node.inputs[0].type.shape)
        axes = self._axes(nd)
        out = node.outputs[0]
        from opkit.core.tensor.types.c_interface import c_dtype

        acc = accumulator(self.kind, node.inputs[0].type.dtype)
        return render(TEMPLATE, "host", name=name, x=inputs[0], out=outputs[0], nd=nd,
                      reduced=[int(d in axes) for d in range(nd)], out_nd=len(out.type.shape),
                      typenum=c_typenum(out.type.dtype), acc_type=c_dtype(acc), acc_typenum=c_typenum(acc),
                      block=BLOCK, empty_error=_EMPTY.get(self.kind, ""), fail=sub["fail"])

    def c_kernels(self, node, name):
        """The CUDA C++ of this node's kernel `APPLY_SPECIFIC(reduce)`."""
        from opkit.core.tensor.types.c_interface import c_dtype

        dtype = node.inputs[0].type.dtype
        return render(TEMPLATE, "kernels", kernel="reduce", in_type=c_dtype(dtype),
                      acc_type=c_dtype(accumulator(self.kind, dtype)), out_type=c_dtype(node.outputs[0].type.dtype),
                      kind=self.kind, block=BLOCK)

    def c_kernel_options(self, node):
        return list(KERNEL_OPTIONS)

    def c_code_cache_version(self):
        return (2,)

    def __str__(self):
        return f"Gpu{self.kind.capitalize()}{{axis={self.axis}, keepdims={self.keepdims}}}"

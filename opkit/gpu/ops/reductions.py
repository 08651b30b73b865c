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
from opkit.core.gradient import Lop
from opkit.core.graph import Apply
from opkit.core.tensor.elementwise.elemwise import broadcast_shape
from opkit.core.tensor.elementwise.elemwise_c import program_statements
from opkit.core.tensor.reductions.reduce_fusion import FusedReduce
from opkit.core.tensor.reductions.reduction import (Max, Mean, Min, Reduce, Sum, normalize_axis, numpy_reduction,
                                                    reduced_shape, result_dtype)
from opkit.core.tensor.types.c_interface import c_dtype, c_typenum
from opkit.gpu.ops.elemwise import TEMPLATE as EW
from opkit.gpu.ops.elemwise import (GPU_DTYPES, KERNEL_OPTIONS, MAX_INPUTS, MAX_NDIM, GpuElemwise, _single,
                                    array_module, gpu_input, gpu_program_ok, single_program)
from opkit.gpu.transfers import GpuArrayType, to_gpu, to_host

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
    """Reduction `kind` (sum, max, min, mean) over `axis` (None: every axis) of a GPU array, or of an elementwise
    `program` of `n_inputs` broadcast GPU arrays (a FusedReduce's: computed as each element is read)."""

    section_files = ("../../core/tensor/elementwise/broadcast.c", "gpu_walk.c")

    __props__ = ("kind", "axis", "keepdims", "program", "n_inputs")

    def __init__(self, kind, axis=None, keepdims=False, program=(), n_inputs=1):
        if kind not in KINDS:
            raise ValueError(f"GpuReduce: unknown reduction {kind!r}; choose one of {', '.join(KINDS)}")
        Reduce.__init__(self, axis, keepdims, kind=kind)  # the host reduction's kind, axis and keepdims
        self.program = tuple((op, tuple(refs), str(dtype)) for op, refs, dtype in program)
        self.n_inputs = int(n_inputs) if self.program else 1

    def _axes(self, ndim):
        return normalize_axis(self.axis, ndim, self.kind)

    def _value(self, inputs):
        """The dtype and static shape of the value reduced (the program's, or the input's)."""
        if not self.program:
            return inputs[0].type.dtype, inputs[0].type.shape
        if not gpu_program_ok(self.program, [i.type.dtype for i in inputs]) or len(inputs) > MAX_INPUTS:
            raise TypeError(f"{self} has no GPU kernel for inputs of dtype "
                            f"{', '.join(i.type.dtype for i in inputs)}")
        return self.program[-1][2], broadcast_shape([i.type.shape for i in inputs], f"the inputs of {self}")

    def make_node(self, *inputs):
        if len(inputs) != self.n_inputs:
            raise TypeError(f"{self} takes {self.n_inputs} input(s), got {len(inputs)}")
        inputs = [gpu_input(i, self) for i in inputs]
        dtype, shape = self._value(inputs)
        if not gpu_reduce_ok(self.kind, dtype, len(shape)):
            raise TypeError(f"{self} has no GPU kernel for a {len(shape)}-d input of dtype {dtype}")
        out_shape = reduced_shape(shape, self._axes(len(shape)), self.keepdims)
        return Apply(self, inputs, [GpuArrayType(result_dtype(self.kind, dtype), out_shape)()])

    def perform(self, node, inputs, output_storage):
        xp = array_module(inputs)
        if self.program:
            values = [None]
            GpuElemwise(self.program, self.n_inputs).perform(node, inputs, [values])
            x = values[0]
        else:
            x = inputs[0]
        axes = self._axes(x.ndim)
        if xp is np:
            result = numpy_reduction(self.kind, x, axes, self.keepdims)
        else:
            if self.kind in _EMPTY and x.size == 0 and any(x.shape[a] == 0 for a in axes):
                raise ValueError(_EMPTY[self.kind])
            result = getattr(xp, self.kind)(x, axis=axes, keepdims=self.keepdims)
        output_storage[0][0] = xp.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, node, input_shapes):
        shape = input_shapes[0]
        if self.program:
            elementwise = GpuElemwise(self.program, self.n_inputs)
            shape, = elementwise.infer_shape(elementwise.make_node(*node.inputs), input_shapes)
        return [reduced_shape(shape, self._axes(len(shape)), self.keepdims)]

    def grad(self, inputs, output_grads):
        """The host reduction's gradient, moved to the GPU."""
        host = [to_host(i) for i in inputs]
        if self.program:
            value = FusedReduce(self.kind, self.axis, self.keepdims, self.program, self.n_inputs)(*host)
        else:
            value = {"sum": Sum, "max": Max, "min": Min, "mean": Mean}[self.kind](self.axis, self.keepdims)(host[0])
        return [to_gpu(g) for g in Lop(value, host, to_host(output_grads[0]))]

    # ---- C ----

    def has_c_code(self, node):
        return True

    def c_support_code(self):
        found = super().c_support_code()
        return [render(EW, "indexer"), *([found] if isinstance(found, str) else list(found or ()))]

    def c_code(self, node, name, inputs, outputs, sub):
        out = node.outputs[0]
        dtype, shape = self._value(node.inputs)
        nd = len(shape)
        axes = self._axes(nd)
        acc = accumulator(self.kind, dtype)
        return render(TEMPLATE, "host", name=name, inputs=list(inputs), out=outputs[0], nd=nd,
                      reduced=[int(d in axes) for d in range(nd)], out_nd=len(out.type.shape),
                      typenum=c_typenum(out.type.dtype), acc_type=c_dtype(acc), acc_typenum=c_typenum(acc),
                      block=BLOCK, empty_error=_EMPTY.get(self.kind, ""), what=f"the inputs of {self}",
                      fail=sub["fail"])

    def c_kernels(self, node, name):
        """The CUDA C++ of this node's kernels `APPLY_SPECIFIC(reduce)` and `APPLY_SPECIFIC(reduce_chunks)`."""
        dtypes = [str(v.type.dtype) for v in node.inputs]
        dtype, _ = self._value(node.inputs)
        steps = []
        if self.program:
            scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
            one = [True if len(v.type.shape) == 0 else f"opkit_one{k}" for k, v in enumerate(node.inputs)]
            steps = program_statements(single_program(self.program, len(dtypes)), [_single(d) for d in dtypes],
                                       scalar, name, one)
        return render(TEMPLATE, "kernels", kernel="reduce", in_types=[c_dtype(_single(d)) for d in dtypes],
                      steps=steps, value_type=c_dtype(_single(dtype)), acc_type=c_dtype(accumulator(self.kind, dtype)),
                      out_type=c_dtype(node.outputs[0].type.dtype), kind=self.kind, block=BLOCK,
                      half_in=[d == "float16" for d in dtypes])

    def c_kernel_options(self, node):
        return list(KERNEL_OPTIONS)

    def c_code_cache_version(self):
        return (3,)

    def __str__(self):
        of = "" if not self.program else ", of " + ",".join(str(step[0]) for step in self.program)
        return f"Gpu{self.kind.capitalize()}{{axis={self.axis}, keepdims={self.keepdims}{of}}}"

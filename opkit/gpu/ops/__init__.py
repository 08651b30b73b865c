"""opkit's built-in GPU ops, registered as the GPU versions of their host ops (opkit.gpu.placement).

- elementwise expressions (Elemwise, FusedElemwise): one generated kernel per fused program (`GpuElemwise`);
- the reductions sum, max, min and mean (Sum, Max, Min, Mean, and a FusedReduce: its elementwise program
  computed as the reduction reads each element): `GpuReduce`;
- Dot: `GpuDot`, cuBLAS through CuPy's matmul (numpy's dot in the interpreter);
- the array-valued shape ops of gradient graphs (Alloc, SumToShape, DimShuffle, Reshape): `GpuAlloc`,
  `GpuSumToShape`, `GpuDimShuffle`, `GpuReshape` (shapes.py), their lengths host int64 values.

A node moves only where its GPU version computes numpy's result (see each module); the others stay on the
host. `GPU_VERSIONS` pairs each host op class with its GPU version: opkit's built-in plugin registers them
through the `register_gpu_versions` hook (opkit.plugins.builtin), as an op package registers its own; importing
this package registers nothing and imports no CuPy.
"""

from __future__ import annotations

from opkit.core.tensor.elementwise.basic import Dot
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.fused.fusion import FusedElemwise
from opkit.core.tensor.reductions.reduce_fusion import FusedReduce
from opkit.core.tensor.reductions.reduction import Max, Mean, Min, Reduce, Sum
from opkit.core.tensor.shapes.alloc import Alloc, DimShuffle
from opkit.core.tensor.shapes.reshape import Reshape
from opkit.core.tensor.shapes.sum_to_shape import SumToShape
from opkit.gpu.ops.dot import DOT_DTYPES, GpuDot, gpu_dot
from opkit.gpu.ops.elemwise import MAX_INPUTS, MAX_NDIM, GpuElemwise, gpu_program_ok
from opkit.gpu.ops.reductions import GpuReduce, gpu_reduce_ok
from opkit.gpu.ops.shapes import (GpuAlloc, GpuDimShuffle, GpuReshape, GpuSumToShape, gpu_alloc_node,
                                  gpu_dimshuffle_node, gpu_reshape_node, gpu_sum_to_shape_node)

__all__ = ["GPU_VERSIONS", "GpuAlloc", "GpuDimShuffle", "GpuDot", "GpuElemwise", "GpuReduce", "GpuReshape",
           "GpuSumToShape", "gpu_elemwise_node", "gpu_reduce_node", "gpu_dot_node"]


def _program(node):
    """The elementwise program of a plain Elemwise or FusedElemwise node, else None."""
    if type(node.op) not in (Elemwise, FusedElemwise):
        return None
    return tuple(node.op._steps(node))


def gpu_elemwise_node(node, gpu_inputs):
    """The GpuElemwise node computing an Elemwise or FusedElemwise `node` on `gpu_inputs`, or None."""
    program = _program(node)
    if program is None or node.outputs[0].ndim > MAX_NDIM or len(gpu_inputs) > MAX_INPUTS:
        return None
    if not gpu_program_ok(program, [v.dtype for v in node.inputs]):
        return None
    return GpuElemwise(program, len(gpu_inputs))(*gpu_inputs).owner


def gpu_reduce_node(node, gpu_inputs):
    """The GpuReduce node of a Sum, Max, Min, Mean or FusedReduce, or None."""
    op = node.op
    if type(op) is FusedReduce:
        program = tuple(op.program)
        out = node.outputs[0]
        ndim = max((v.ndim for v in node.inputs), default=0)
        if ndim > MAX_NDIM or len(gpu_inputs) > MAX_INPUTS or not gpu_program_ok(program, [v.dtype for v in node.inputs]) \
                or not gpu_reduce_ok(op.kind, program[-1][2], ndim):
            return None
        result = GpuReduce(op.kind, op.axis, op.keepdims, program, len(gpu_inputs))(*gpu_inputs)
        return result.owner if result.type.dtype == out.dtype else None
    if type(op) not in (Sum, Max, Min, Mean, Reduce):
        return None
    x = node.inputs[0]
    if not gpu_reduce_ok(op.kind, x.dtype, x.ndim):
        return None
    return GpuReduce(op.kind, op.axis, op.keepdims)(gpu_inputs[0]).owner


def gpu_dot_node(node, gpu_inputs):
    """The GpuDot node of a Dot of float32 or float64 operands, or None."""
    if node.outputs[0].dtype not in DOT_DTYPES:
        return None
    return gpu_dot(*gpu_inputs).owner


# (host op class, its GPU version): what opkit.plugins.builtin registers through register_gpu_versions.
GPU_VERSIONS = ((Elemwise, gpu_elemwise_node), (Reduce, gpu_reduce_node), (Dot, gpu_dot_node),
                (Alloc, gpu_alloc_node), (SumToShape, gpu_sum_to_shape_node), (DimShuffle, gpu_dimshuffle_node),
                (Reshape, gpu_reshape_node))

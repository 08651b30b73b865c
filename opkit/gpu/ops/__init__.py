"""opkit's built-in GPU ops, registered as the GPU versions of their host ops (opkit.gpu.placement).

- elementwise expressions (Elemwise, FusedElemwise): one generated kernel per fused program (`GpuElemwise`);
- the reductions sum, max, min and mean (Sum, Max, Min, Mean, and a FusedReduce: its elementwise program
  computed as the reduction reads each element): `GpuReduce`;
- Dot: `GpuDot`, cuBLAS through CuPy's matmul (numpy's dot in the interpreter);
- the array-valued shape ops of gradient graphs (Alloc, SumToShape, DimShuffle, Reshape): `GpuAlloc`,
  `GpuSumToShape`, `GpuDimShuffle`, `GpuReshape` (shapes.py), their lengths host int64 values.

A node moves only where its GPU version computes numpy's result (see each module); the others stay on the
host. Importing this package registers them; it imports no CuPy.
"""

from __future__ import annotations

from opkit.gpu.ops.dot import DOT_DTYPES, GpuDot, gpu_dot
from opkit.gpu.ops.elemwise import MAX_INPUTS, MAX_NDIM, GpuElemwise, gpu_program_ok
from opkit.gpu.ops.reductions import GpuReduce, gpu_reduce_ok
from opkit.gpu.ops.shapes import (GpuAlloc, GpuDimShuffle, GpuReshape, GpuSumToShape, gpu_alloc_node,
                                  gpu_dimshuffle_node, gpu_reshape_node, gpu_sum_to_shape_node)
from opkit.gpu.placement import register_gpu_version

__all__ = ["GpuAlloc", "GpuDimShuffle", "GpuDot", "GpuElemwise", "GpuReduce", "GpuReshape", "GpuSumToShape",
           "gpu_elemwise_node", "gpu_reduce_node", "gpu_dot_node"]


def _program(node):
    """The elementwise program of a plain Elemwise or FusedElemwise node, else None."""
    from opkit.core.tensor.elementwise.elemwise import Elemwise
    from opkit.core.tensor.fused.fusion import FusedElemwise

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
    from opkit.core.tensor.reductions.reduce_fusion import FusedReduce
    from opkit.core.tensor.reductions.reduction import Max, Mean, Min, Reduce, Sum

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


def _register():
    from opkit.core.tensor.elementwise.basic import Dot
    from opkit.core.tensor.elementwise.elemwise import Elemwise
    from opkit.core.tensor.reductions.reduction import Reduce
    from opkit.core.tensor.shapes.alloc import Alloc, DimShuffle
    from opkit.core.tensor.shapes.reshape import Reshape
    from opkit.core.tensor.shapes.sum_to_shape import SumToShape

    register_gpu_version(Elemwise, gpu_elemwise_node)
    register_gpu_version(Reduce, gpu_reduce_node)
    register_gpu_version(Dot, gpu_dot_node)
    register_gpu_version(Alloc, gpu_alloc_node)
    register_gpu_version(SumToShape, gpu_sum_to_shape_node)
    register_gpu_version(DimShuffle, gpu_dimshuffle_node)
    register_gpu_version(Reshape, gpu_reshape_node)
    _register_shape_c_code()


def _register_shape_c_code():
    """Shape and Shape_i of a GPU value in C (the section files here): its lengths, read without its data."""
    import pathlib

    from opkit.core import builtin_ops
    from opkit.gpu.types import GpuArrayType

    here = pathlib.Path(__file__).parent
    builtin_ops.register_shape_c_code(GpuArrayType, here / "gpu_shape.c", version=(1,))
    builtin_ops.register_shape_i_c_code(GpuArrayType, here / "gpu_shape_i.c", here / "gpu_shape_i_check.c",
                                        version=(1,))


_register()

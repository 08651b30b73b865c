"""The GPU versions of the array-valued shape ops that gradient graphs are made of: Alloc (the broadcast of a
gradient seed or of a reduction's gradient), SumToShape (a broadcast input's gradient summed back), DimShuffle
(a transposition or new length-1 axes, a view) and Reshape (a view where numpy makes one).

Each computes what its host op computes, with CuPy on device="cuda" and numpy under the CPU interpreter
(device="cuda-interpret", whose GPU values are numpy arrays): the same shapes and dtypes, the same views
(view_map) and new arrays, the same errors with the host op's messages. Their lengths (Alloc's dims,
SumToShape's and Reshape's shape vectors) stay host int64 values: shape arithmetic is scalars, not arrays.
The static type of an output is the host op's (make_node runs the host op's make_node on a stand-in), so a
node placed on the GPU keeps every length its host node knew.
"""

from __future__ import annotations

import numpy as np

from opkit.core.gradient import Lop
from opkit.core.gradient_types import disconnected_type
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import DimShuffle, alloc, broadcast_copy
from opkit.core.tensor.shapes.reshape import Reshape, resolve_shape
from opkit.core.tensor.shapes.sum_to_shape import _fit_error, sum_to_shape, sum_to_shape_value
from opkit.core.tensor.types.type import TensorType
from opkit.gpu.ops.elemwise import GPU_DTYPES, array_module, gpu_input
from opkit.gpu.transfers import GpuArrayType, ToHost, to_gpu, to_host


def _host_stand_in(x):
    """A host variable of `x`'s (GPU) type: the host op's make_node checks it and gives the output's type."""
    return TensorType(x.type.dtype, x.type.shape)()


def _gpu_output(host_node):
    out = host_node.outputs[0].type
    return GpuArrayType(out.dtype, out.shape)()


def _host_grad(host_op, inputs, output_grads, n_lengths):
    """The host op's gradient of its array input, moved to the GPU (the lengths are not differentiable)."""
    x = to_host(inputs[0])
    (grad,) = Lop(host_op(x, *inputs[1:]), [x], to_host(output_grads[0]))
    return [to_gpu(grad)] + [disconnected_type() for _ in range(n_lengths)]


class GpuAlloc(Op):
    """A GPU `value` broadcast to the lengths given by host integer scalars, as a new GPU array (Alloc)."""

    __props__ = ()

    def make_node(self, value, *dims):
        value = gpu_input(value, self)
        host = alloc.make_node(_host_stand_in(value), *dims)
        return Apply(self, [value, *host.inputs[1:]], [_gpu_output(host)])

    def perform(self, node, inputs, output_storage):
        value, *dims = inputs
        xp = array_module([value])
        shape = [int(d) for d in dims]
        dtype = node.outputs[0].type.dtype
        if xp is np:
            output_storage[0][0] = broadcast_copy(value, shape, dtype, "alloc")
            return
        if any(d < 0 for d in shape):
            raise ValueError("negative dimensions are not allowed")
        if not _broadcasts(value.shape, shape):  # numpy's message (broadcast_copy's), checked before CuPy's
            broadcast_copy(np.empty(value.shape, dtype=value.dtype), shape, dtype, "alloc")
        result = xp.empty(shape, dtype=dtype)
        result[...] = value
        output_storage[0][0] = result

    def infer_shape(self, node, input_shapes):
        return [tuple(node.inputs[1:])]

    def connection_pattern(self, node):
        return [[True]] + [[False] for _ in node.inputs[1:]]

    def do_constant_folding(self, node):
        return False  # the host Alloc's reason: a large array kept in the graph

    def grad(self, inputs, output_grads):
        return _host_grad(alloc, inputs, output_grads, len(inputs) - 1)

    def __str__(self):
        return "GpuAlloc"


def _broadcasts(shape, target):
    """True if numpy broadcasts an array of `shape` to `target` (each length 1 or the target's, from the last)."""
    if len(shape) > len(target):
        return False
    return all(have in (1, want) for have, want in zip(shape[::-1], target[::-1]))


class GpuSumToShape(Op):
    """A GPU gradient summed (keepdims) to a host int64 shape vector where it says 1 (SumToShape); the input
    itself where nothing is summed."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, g, shape):
        g = gpu_input(g, self)
        host = sum_to_shape.make_node(_host_stand_in(g), shape)
        return Apply(self, [g, host.inputs[1]], [_gpu_output(host)])

    def perform(self, node, inputs, output_storage):
        g, shape = inputs
        xp = array_module([g])
        dtype = np.dtype(node.outputs[0].type.dtype)
        if xp is np:
            output_storage[0][0] = sum_to_shape_value(g, shape, dtype)
            return
        axes = _summed_axes(g.shape, shape)
        output_storage[0][0] = xp.sum(g, axis=axes, dtype=dtype, keepdims=True) if axes else g

    def infer_shape(self, node, input_shapes):
        static = node.outputs[0].type.shape
        return [tuple(s if s is not None else node.inputs[1][i] for i, s in enumerate(static))]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return _host_grad(sum_to_shape, inputs, output_grads, 1)

    def __str__(self):
        return "GpuSumToShape"


def _summed_axes(shape, target):
    """The axes SumToShape sums `shape` over to reach `target`; the host op's errors where it cannot."""
    target = tuple(int(t) for t in target)
    if len(target) != len(shape):
        raise ValueError(f"sum_to_shape: the shape vector has {len(target)} entries for a {len(shape)}-d array")
    if any(have != want and want != 1 for have, want in zip(shape, target)):
        raise _fit_error(shape, target)
    return tuple(axis for axis, (have, want) in enumerate(zip(shape, target)) if have != want)


class GpuDimShuffle(Op):
    """A view of a GPU array with its axes reordered and length-1 axes inserted ('x'), as DimShuffle."""

    __props__ = ("new_order",)
    view_map = {0: [0]}

    def __init__(self, new_order):
        self.new_order = tuple(a if a == "x" else int(a) for a in new_order)

    def make_node(self, x):
        x = gpu_input(x, self)
        return Apply(self, [x], [_gpu_output(DimShuffle(self.new_order).make_node(_host_stand_in(x)))])

    def perform(self, node, inputs, output_storage):
        xp = array_module(inputs)
        x = xp.transpose(inputs[0], [a for a in self.new_order if a != "x"])
        inserted = tuple(i for i, a in enumerate(self.new_order) if a == "x")
        output_storage[0][0] = xp.expand_dims(x, inserted) if inserted else x

    def infer_shape(self, node, input_shapes):
        return [tuple(1 if a == "x" else input_shapes[0][a] for a in self.new_order)]

    def grad(self, inputs, output_grads):
        return _host_grad(DimShuffle(self.new_order), inputs, output_grads, 0)

    def __str__(self):
        return "GpuDimShuffle{" + ",".join(map(str, self.new_order)) + "}"


class GpuReshape(Op):
    """A GPU array reshaped to a host int64 shape vector (one -1 allowed), as numpy.reshape in C order (Reshape):
    a view where numpy makes one."""

    __props__ = ("ndim",)
    view_map = {0: [0]}

    def __init__(self, ndim):
        self.ndim = int(ndim)

    def make_node(self, x, shape):
        x = gpu_input(x, self)
        host = Reshape(self.ndim).make_node(_host_stand_in(x), shape)
        return Apply(self, [x, host.inputs[1]], [_gpu_output(host)])

    def perform(self, node, inputs, output_storage):
        x, shape = inputs
        xp = array_module([x])
        output_storage[0][0] = xp.reshape(x, resolve_shape(x.size, shape, x.shape))

    def infer_shape(self, node, input_shapes):
        host = Reshape(self.ndim).make_node(_host_stand_in(node.inputs[0]), node.inputs[1])
        return Reshape(self.ndim).infer_shape(host, input_shapes)

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return _host_grad(Reshape(self.ndim), inputs, output_grads, 1)

    def __str__(self):
        return f"GpuReshape{{{self.ndim}}}"


def _movable(node):
    """True where the node's array is already on the GPU (a GPU value, or a graph input or constant, which
    placement moves once) and of a dtype the GPU ops compute (elemwise.GPU_DTYPES). A shape op of a value the
    host computed (shape arithmetic: int vectors of Shape_i) stays on the host: moving it would put a
    transfer in the middle of the graph."""
    array = node.inputs[0]
    on_gpu = isinstance(array.type, GpuArrayType) or array.owner is None or isinstance(array.owner.op, ToHost)
    return on_gpu and str(node.outputs[0].dtype) in GPU_DTYPES | {"float16"}


def gpu_alloc_node(node, gpu_inputs):
    """The GpuAlloc of an Alloc: its value on the GPU, its lengths the host node's."""
    if not _movable(node):
        return None
    return GpuAlloc()(gpu_inputs[0], *node.inputs[1:]).owner


def gpu_sum_to_shape_node(node, gpu_inputs):
    """The GpuSumToShape of a SumToShape: its gradient on the GPU, its shape vector the host node's."""
    if not _movable(node):
        return None
    return GpuSumToShape()(gpu_inputs[0], node.inputs[1]).owner


def gpu_dimshuffle_node(node, gpu_inputs):
    """The GpuDimShuffle of a DimShuffle."""
    if not _movable(node):
        return None
    return GpuDimShuffle(node.op.new_order)(gpu_inputs[0]).owner


def gpu_reshape_node(node, gpu_inputs):
    """The GpuReshape of a Reshape: its array on the GPU, its shape vector the host node's."""
    if not _movable(node):
        return None
    return GpuReshape(node.op.ndim)(gpu_inputs[0], node.inputs[1]).owner

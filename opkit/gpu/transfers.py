"""to_gpu and to_host: the ops that move values between host memory (numpy) and GPU memory (CuPy).

Under device="cuda-interpret" GPU memory is host memory: both ops copy the numpy array, so a GPU value
never aliases a host one, as on a GPU. Each op's gradient is the other op applied to the output's gradient.
An op made by the user has no device (None); opkit.function binds it to the function's device.
"""

from __future__ import annotations

import numpy as np

from opkit.config import config
from opkit.core.graph import Apply
from opkit.core.op import Op
from opkit.core.tensor.types.variable import as_tensor_variable
from opkit.gpu import types
from opkit.gpu.device import INTERPRET, check_device
from opkit.gpu.runtime import cupy
from opkit.gpu.types import (GpuArrayConstant, GpuArrayType, GpuArrayVariable, matrix, scalar,  # noqa: F401
                             tensor3, tensor4, to_numpy, vector)


def _device(op):
    """The device a transfer runs for: its own, else config.device ("cpu" means the GPU: CuPy values)."""
    device = op.device
    if device is None:
        device = config.device
    return INTERPRET if device == INTERPRET else "cuda"


class _Transfer(Op):
    __props__ = ("device",)

    def __init__(self, device=None):
        self.device = None if device is None else check_device(device, f"{type(self).__name__}(device)")

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def do_constant_folding(self, node):
        return False  # a folded transfer would keep a device array in the graph: it runs at call time

    def __str__(self):
        return type(self).__name__ if self.device is None else f"{type(self).__name__}{{{self.device}}}"


class ToGpu(_Transfer):
    """Copy a host array (numpy) to GPU memory: a CuPy array (a numpy copy under the interpreter)."""

    def make_node(self, x):
        x = as_tensor_variable(x)
        return Apply(self, [x], [GpuArrayType(x.type.dtype, x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if _device(self) == INTERPRET:
            output_storage[0][0] = np.array(x, dtype=node.outputs[0].type.dtype, copy=True)
        else:
            output_storage[0][0] = cupy().array(x, dtype=node.outputs[0].type.dtype, copy=True)

    def grad(self, inputs, output_grads):
        return [to_host(output_grads[0])]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else to_gpu(eval_points[0])]


class ToHost(_Transfer):
    """Copy a GPU array to host memory: a numpy array."""

    def make_node(self, x, host_type=None):
        if not isinstance(getattr(x, "type", None), GpuArrayType):
            raise TypeError(f"to_host takes a GPU variable (opkit.gpu.GpuArrayType), got {x!r} of type "
                            f"{getattr(x, 'type', type(x).__name__)}")
        return Apply(self, [x], [(host_type or x.type.host_type())()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if _device(self) == INTERPRET:
            output_storage[0][0] = np.array(x, copy=True)
        else:
            output_storage[0][0] = x.get()

    def grad(self, inputs, output_grads):
        return [to_gpu(output_grads[0])]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else to_host(eval_points[0])]


def _is_gpu(x):
    return isinstance(getattr(x, "type", None), GpuArrayType)


def to_gpu(x):
    """Return `x` (a host tensor, or a value) as a GPU variable; a GPU variable is returned as it is."""
    return x if _is_gpu(x) else ToGpu()(x)


def to_host(x):
    """Return the GPU variable `x` as a host tensor; a host variable is returned as it is."""
    if _is_gpu(x):
        return ToHost()(x)
    return as_tensor_variable(x)


types._TRANSFERS.update(to_gpu=to_gpu, to_host=to_host)  # GPU variables' operators build them

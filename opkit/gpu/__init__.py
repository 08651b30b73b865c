"""opkit.gpu: GPU values (CuPy arrays, or numpy arrays under the CPU interpreter), transfers and placement.

Importing this package never imports CuPy (nor its own modules that need it): the names below are
loaded on first use, and CuPy when a GPU value is first made or checked.
"""

from __future__ import annotations

from opkit.gpu.device import DEVICES, current_device, using_device
from opkit.gpu.placement import register_gpu_version
from opkit.lazy import lazy_names as _lazy_names

# The type and its constructors are taken from opkit.gpu.transfers, which re-exports them: loading it
# registers to_gpu/to_host for the operators of GPU variables (opkit.gpu.types cannot import it: a circle).
_LAZY = {
    "GpuArrayType": "opkit.gpu.transfers", "GpuArrayVariable": "opkit.gpu.transfers",
    "GpuArrayConstant": "opkit.gpu.transfers", "scalar": "opkit.gpu.transfers", "vector": "opkit.gpu.transfers",
    "matrix": "opkit.gpu.transfers", "tensor3": "opkit.gpu.transfers", "tensor4": "opkit.gpu.transfers",
    "to_numpy": "opkit.gpu.transfers",
    "to_gpu": "opkit.gpu.transfers", "to_host": "opkit.gpu.transfers",
    "ToGpu": "opkit.gpu.transfers", "ToHost": "opkit.gpu.transfers",
    "has_device": "opkit.gpu.runtime", "NoDeviceError": "opkit.gpu.runtime", "current_stream": "opkit.gpu.runtime",
    "kernel_function": "opkit.gpu.runtime",
    "compile_kernels": "opkit.cop.kernels",
}

__all__ = ["DEVICES", "current_device", "using_device", "register_gpu_version", *_LAZY]


__getattr__, __dir__ = _lazy_names(globals(), _LAZY, listing=sorted(__all__))

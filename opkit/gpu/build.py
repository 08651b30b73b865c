"""What a module holding GPU variables or GPU nodes is compiled with: the header's folder and the mode.

Under device="cuda-interpret" the module is compiled with OPKIT_CUDA_INTERPRET defined (at its top, as a
compile argument): opkit_gpu.h then gives kernels CUDA's built-ins on the CPU and GPU values are numpy
arrays. The argument is part of the module's identity, so the interpreter's module is never the GPU's.
"""

from __future__ import annotations

import functools
import os

from opkit.gpu.device import interpreting

INTERPRET_MACRO = "OPKIT_CUDA_INTERPRET"
MODULE_KEY_MACRO = "OPKIT_KERNEL_MODULE_KEY"


@functools.lru_cache(maxsize=None)
def gpu_header_dir() -> str:
    """Return opkit/templates/gpu, where opkit_gpu.h and cuda_interpret.h are."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates", "gpu")


def gpu_header_dirs():
    return [gpu_header_dir()]


def gpu_compile_args():
    """Return the compile arguments of a module with GPU code for the device being compiled for."""
    return [f"-D{INTERPRET_MACRO}"] if interpreting() else []

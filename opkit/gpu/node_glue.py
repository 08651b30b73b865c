"""What a GPU node's host module holds of its kernels, per device (COp.c_support_code_apply asks here).

- "cuda-interpret": the node's `kernels` text (opkit.cop.kernels.kernel_source, with its macros and `#line`
  directives at the user's file), checked by opkit.cop.source.kernel_refusals.check_interpretable, then
  compiled by g++ in the host module; OPKIT_LAUNCH runs it on the CPU.
- "cuda": the kernels are compiled by NVRTC for the current device's architecture (PTX kept as fallback)
  and the module holds their key, so the module's identity covers the kernel text, its headers, NVRTC's
  version, the options and the architecture; opkit.gpu.runtime.kernel_function loads them by that key.
"""

from __future__ import annotations

from opkit.core.c_render import render
from opkit.gpu.device import current_device, INTERPRET

TEMPLATE = "gpu/gpu_node.c.j2"
KEY_SYMBOL = "opkit_kernel_module_key"


def kernels_in_host_module(node, name) -> str:
    """Return the support code of GPU node `node` (named `name` in its module) for the current device."""
    from opkit.cop import kernels

    if current_device() == INTERPRET:
        text = kernels.kernel_source(node, name)
        _check_interpretable(node, text)
        return render(TEMPLATE, "interpret", kernels=text)
    module = kernels.kernel_module(node, device_arch(), (), name)
    from opkit.gpu.runtime import register_kernel_binary

    register_kernel_binary(module.key, module.cubin, module.ptx)
    return render(TEMPLATE, "cuda", symbol=f"{KEY_SYMBOL}_{name}", key=module.key)


def _check_interpretable(node, text):
    try:
        from opkit.cop.source.kernel_refusals import check_interpretable
    except ImportError:  # the interpreter's refusals are not installed: nothing is refused
        return
    files = getattr(node.op, "func_files", None) or ("<kernels>",)
    check_interpretable(text, files[0])


def device_arch() -> str:
    """Return the architecture NVRTC compiles for: the current CUDA device's (sm_90 on an H100)."""
    from opkit.gpu.runtime import cupy, require_device

    require_device()
    return f"sm_{cupy().cuda.Device().compute_capability}"  # CuPy's "90" for compute capability 9.0

"""What a GPU node's host module holds of its kernels, per device (COp.c_support_code_apply asks here).

- "cuda-interpret": the node's `kernels` text (opkit.cop.kernels.kernel_source, with its macros and `#line`
  directives at the user's file), as opkit.cop.source.kernel_refusals.interpretable_text makes and checks
  it, compiled by g++ in the host module; OPKIT_LAUNCH runs it on the CPU.
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
        return render(TEMPLATE, "interpret", kernels=interpretable(node, kernels.kernel_source(node, name)))
    module = _shipped_or_compiled(node, device_arch(), name)
    from opkit.gpu.runtime import register_kernel_binary

    register_kernel_binary(module.key, module.cubin, module.ptx)
    return render(TEMPLATE, "cuda", symbol=f"{KEY_SYMBOL}_{name}", key=module.key)


def interpretable(node, text):
    """Return the node's kernels text as the interpreter compiles it (dynamic shared memory given the launch's
    bytes), or raise KernelNotInterpretable naming what it cannot run faithfully, at the user's file:line."""
    from opkit.cop.kernels import op_kernel_options, contracting_options
    from opkit.cop.source.kernel_refusals import KernelNotInterpretable, interpretable_text

    files = getattr(node.op, "func_files", None) or (f"<kernels of {type(node.op).__name__}>",)
    refused = contracting_options(op_kernel_options(node, ()))
    if refused:
        raise KernelNotInterpretable(
            f"{type(node.op).__name__}'s kernels ask NVRTC for {', '.join(refused)} (c_kernel_options): NVRTC then "
            f"fuses or approximates operations where it chooses, which the CUDA interpreter cannot reproduce; "
            f"run them on device='cuda', or drop the option to test them here", path=files[0], construct=refused[0])
    return interpretable_text(text, files[0])


def _shipped_or_compiled(node, arch, name):
    """Return the node's kernels for `arch`: those its op package ships (`opkit build --arch`), else NVRTC's;
    without NVRTC, the newest architecture shipped below `arch` (the driver compiles its PTX)."""
    from opkit.cop import kernels
    from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError
    from opkit.gpu.shipped_kernels import find_shipped_kernels, shipped_archs_note

    shipped = find_shipped_kernels(node, arch, name)
    if shipped is not None:
        return shipped
    try:
        return kernels.kernel_module(node, arch, (), name)
    except NvrtcNotFoundError as exc:
        shipped = find_shipped_kernels(node, arch, name, exact=False)
        if shipped is None:
            raise NvrtcNotFoundError(f"{exc.message}{shipped_archs_note(node, arch)}") from None
        return shipped


def device_arch() -> str:
    """Return the architecture NVRTC compiles for: the current CUDA device's (sm_90 on an H100), or the one
    `opkit build --arch` builds for (opkit.gpu.shipped_kernels.building_for)."""
    from opkit.gpu.runtime import cupy, require_device
    from opkit.gpu.shipped_kernels import building_arch

    if building_arch() is not None:
        return building_arch()
    require_device()
    return f"sm_{cupy().cuda.Device().compute_capability}"  # CuPy's "90" for compute capability 9.0

"""What the GPU targets (opkit.gpu.device) do with a GPU node's kernels when its module's code is generated.

opkit.cop.generate.node_glue asks the target; the target asks here (opkit.gpu.device loads this module
through its one door, at the first GPU node):

- `render_kernels(node, name)` (cuda-interpret): the node's kernels text (opkit.cop.source.kernel_source) as
  the CPU interpreter compiles it in the host module, or KernelNotInterpretable at the user's file:line
  (opkit.gpu.interpret.refusals);
- `load_kernels(node, name)` (cuda, and the GPU nodes of a cpu function): the node's kernels for the device's
  architecture (`device_arch`), those its op package ships (opkit.gpu.shipped_kernels) or NVRTC's
  (opkit.cop.kernels), handed to the runtime (opkit.gpu.runtime.register_kernel_binary); returns their key,
  which the host module holds.
"""

from __future__ import annotations

from opkit.cop import kernels
from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError
from opkit.gpu import runtime
from opkit.gpu.interpret.refusals import interpretable
from opkit.gpu.shipped_kernels import building_arch, find_shipped_kernels, shipped_archs_note


def render_kernels(node, name) -> str:
    """Return the node's kernels as the interpreter compiles them in the host module (see the module's doc)."""
    return interpretable(node, kernels.kernel_source(node, name))


def load_kernels(node, name) -> str:
    """Return the key of the node's kernels for the device's architecture, handed to the runtime."""
    module = shipped_or_compiled(node, device_arch(), name)
    runtime.register_kernel_binary(module.key, module.cubin, module.ptx)
    return module.key


def shipped_or_compiled(node, arch, name):
    """Return the node's kernels for `arch`: those its op package ships (`opkit build --arch`), else NVRTC's;
    without NVRTC, the newest architecture shipped below `arch` (the driver compiles its PTX)."""
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
    if building_arch() is not None:
        return building_arch()
    runtime.require_device()
    return f"sm_{runtime.cupy().cuda.Device().compute_capability}"  # CuPy's "90" for compute capability 9.0

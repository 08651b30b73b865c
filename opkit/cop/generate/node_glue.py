"""What a GPU node's host module holds of its kernels: the target's hook in code generation.

A GPU node is one whose op has CUDA kernels (a `#section kernels` or a c_kernels(node, name) method) and one
of whose inputs or outputs is of a GPU type (a type whose values have a `host_type`); a COp file may hold CPU
`code` and CUDA `kernels`, and on host types its node is a CPU node, whose module does not change. What the
host module holds comes from the target it is generated for (opkit.cop.generate.target):

- a target that interprets (cuda-interpret): the node's kernels text (its macros and `#line` directives at the
  user's file) as the target renders it for the CUDA interpreter, compiled by g++ in the host module;
  OPKIT_LAUNCH runs it on the CPU.
- the others (cuda, and the GPU nodes of a cpu function): the key of the node's kernels, which the target
  compiles apart (NVRTC for the device's architecture, or its package's shipped cubin) and hands to its
  runtime, so the module's identity covers the kernel text, its headers, NVRTC's version, the options and the
  architecture; opkit_gpu_cuda.h loads them by that key.
"""

from __future__ import annotations

from opkit.core.c_render import render

TEMPLATE = "gpu/gpu_node.c.j2"
KEY_SYMBOL = "opkit_kernel_module_key"


def is_gpu_node(op, node) -> bool:
    """Return True if `node` (of `op`) runs CUDA kernels: its op has some, and a value of it is a GPU type's."""
    if not (getattr(op, "code_sections", None) or {}).get("kernels") and not callable(getattr(op, "c_kernels", None)):
        return False
    return any(callable(getattr(v.type, "host_type", None)) for v in (*node.inputs, *node.outputs))


def kernels_in_host_module(node, name, target) -> str:
    """Return the support code of GPU node `node` (named `name` in its module) for `target`."""
    if target.interprets:
        return render(TEMPLATE, "interpret", kernels=target.render_kernels(node, name))
    return render(TEMPLATE, "cuda", symbol=f"{KEY_SYMBOL}_{name}", key=target.load_kernels(node, name))

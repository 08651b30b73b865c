"""A node's CUDA kernels compiled by NVRTC and kept in the compile cache: cop's door for them, on top of its stages.

The parts live in the stages, each importing only those before it:
- source/kernel_source: the node's kernels text (`kernel_source`, `kernel_names`, `has_kernels`, ...);
- toolchain/nvrtc_kernels: what NVRTC receives (`kernel_request`), its identity (`kernel_module_key`), the
  options, and `opkit check`'s compile (`check_kernels`); toolchain/nvrtc: NVRTC itself;
- store/kernel_cache: compiled kernels kept by key (`kernel_binary`, `KernelModule`).

Here they meet, as a region's module meets the compiler in opkit.cop.compile:
- `kernel_module(node, arch="sm_90", options=(), name="node_0")`: everything the runtime needs (key, cubin,
  PTX, symbols), from this process, the cache, or NVRTC;
- `compile_kernels(...)`: the cubin (NVRTC, no GPU needed), opkit.gpu.compile_kernels.

`name` is the node's name in its host module (`node_<index>`, as opkit.cop.generate names it): the host
code's `APPLY_SPECIFIC(axpy)` and the cubin's symbol must agree.
"""

from __future__ import annotations

from opkit.cop.source.kernel_source import (DEFAULT_NAME, has_kernels, kernel_names, kernel_source,  # noqa: F401
                                            kernel_symbol, op_kernel_options, program_text)
from opkit.cop.store.kernel_cache import (PTX_NAME, SOURCE_NAME, KernelModule, kernel_binary,  # noqa: F401
                                          kernel_cache, kernel_events, load_or_build, write_entry, write_source)
from opkit.cop.store.kernel_cache import _binaries  # noqa: F401  (benchmarks/figure_gpu.py empties it: a cold compile)
from opkit.cop.toolchain.identity import request_key
from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError, compile_cuda, normalize_arch, nvrtc_version
from opkit.cop.toolchain.nvrtc_kernels import (KERNEL_FORMAT, PRELUDE, PRELUDE_DIR, check_kernels,  # noqa: F401
                                               contracting_options, kernel_include_dirs, kernel_module_key,
                                               kernel_options, kernel_request, nvrtc_missing_message)
from opkit.errors import CompileError


def kernel_module(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME) -> KernelModule:
    """Return the node's compiled kernels: from this process, from the compile cache, or compiled by NVRTC.

    A kernel error raises CompileError at the user's file:line, naming the node, with the source kept.
    """
    arch = normalize_arch(arch)
    request = kernel_request(node, arch, options, name)
    key = request_key(request, KERNEL_FORMAT)
    text, include_dirs, nvrtc_options = request.code_text(), list(request.include_dirs), list(request.compile_args)
    symbols = tuple(kernel_symbol(kernel, name) for kernel in kernel_names(text))

    def build(tmp_dir):
        source = write_source(tmp_dir, text)
        compiled = compile_cuda(text, str(source), arch, nvrtc_options, include_dirs, source_path=source)
        return write_entry(tmp_dir, key, compiled, meta)

    meta = {"description": f"CUDA kernels of {type(node.op).__name__} for {arch}"[:500], "arch": arch,
            "nvrtc": ".".join(map(str, nvrtc_version())), "options": nvrtc_options, "kernels": kernel_names(text)}
    try:
        cubin, ptx = load_or_build(key, build, meta)
    except CompileError as exc:
        raise _with_node(exc, node, name) from None
    return KernelModule(key, arch, cubin, ptx, symbols)


def compile_kernels(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME) -> bytes:
    """Return the cubin of the node's `#section kernels` compiled by NVRTC for `arch` (no GPU needed).

    For a `compute_XX` arch, the PTX's bytes. Cached by identity (kernel_module_key) across processes.
    Without NVRTC (no `cuda` extra) the error says what is missing and how to install it, the whole story:
    its traceback stops here, at the caller's line, not in the toolchain's frames below.
    """
    try:
        module = kernel_module(node, arch, options, name)
    except NvrtcNotFoundError as exc:
        raise exc.with_traceback(None) from None
    return module.cubin or module.ptx.encode("utf-8")


def _with_node(exc: CompileError, node, name) -> CompileError:
    """Name the node whose kernels failed in the error, keeping its class and attributes."""
    op = node.op
    exc.message = (f"{exc.message}\nwhile compiling the CUDA kernels of:\n  {node}  [op {type(op).__module__}."
                   f"{type(op).__qualname__}, node name {name}]")
    exc.args = (exc.message,)
    exc.node = node
    return exc


__all__ = ["KernelModule", "compile_kernels", "has_kernels", "kernel_binary", "kernel_module", "kernel_module_key",
           "kernel_names", "kernel_source", "kernel_symbol", "nvrtc_version"]

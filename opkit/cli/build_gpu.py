"""`opkit build OP --dtypes ... --arch sm_80,sm_90 [--into PACKAGE_DIR]`: a GPU op, built for named architectures.

For each architecture: the node's kernels compiled by NVRTC (no GPU needed) and its host module built
for device="cuda" with that architecture's kernels; with --into, both shipped in the op package
(opkit.gpu.shipped_kernels, opkit.cop.store.shipped), so that a machine with a GPU but without NVRTC
(or without a compiler) runs them.
"""

from __future__ import annotations

import contextlib

from opkit.cli.errors import BadArguments, CommandFailed
from opkit.cop import kernels
from opkit.cop.toolchain.nvrtc import normalize_arch, supported_archs
from opkit.errors import CompileError
from opkit.gpu.device import using_device
from opkit.gpu.kernel_hooks import device_arch
from opkit.gpu.runtime import NoDeviceError, require_device
from opkit.gpu.shipped_kernels import building_for, ship_kernels


def parse_archs(text: str) -> list[str]:
    """Return the architectures of --arch ('sm_80,sm_90'), normalized and without repeats; BadArguments if wrong."""
    tokens = [token.strip() for token in text.split(",") if token.strip()]
    if not tokens:
        raise BadArguments(f"--arch {text!r} names no architecture; e.g. --arch sm_80,sm_90")
    archs = []
    for token in tokens:
        try:
            arch = normalize_arch(token)
        except ValueError as exc:
            raise BadArguments(f"--arch: {exc}") from None
        if arch.startswith("compute_"):
            raise BadArguments(f"--arch: {token!r} is PTX only; name the GPUs' architectures (sm_80, sm_90): "
                               "each one's PTX is shipped with its cubin")
        if arch not in archs:
            archs.append(arch)
    return archs


def device_arch_of(node) -> str | None:
    """Return the architecture of this machine's GPU if `node`'s op has CUDA kernels, None for a CPU op;
    CommandFailed naming --arch where CuPy finds no device."""
    if not kernels.has_kernels(node.op):
        return None
    try:
        require_device()
    except NoDeviceError as exc:
        raise CommandFailed(f"{type(node.op).__name__} is a GPU op (it has CUDA kernels) and opkit builds it for "
                            f"this machine's GPU, and here {str(exc).splitlines()[0].partition(': ')[2]}"
                            "\nfix: name the GPUs' architectures: --arch sm_80,sm_90 (NVRTC compiles for them "
                            "without a GPU)") from None
    return device_arch()


def for_gpu_node(node, arch):
    """Return a context making `node`'s module as on device 'cuda' for `arch` (default: the GPU's) if its op
    has CUDA kernels; a null context for a CPU op."""
    arch = parse_archs(arch)[0] if arch else device_arch_of(node)
    if arch is None:
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(using_device("cuda"))
    stack.enter_context(building_for(arch))
    return stack


def run_build_archs(args, make_node, check_into, build_host) -> int:
    """Build (and with --into, ship) `args.op`'s node for each --arch; the rest is `opkit build`'s own
    (opkit.cli.ops passes its make_node, --into check and host build, for each architecture)."""
    archs = parse_archs(args.arch)
    with using_device("cuda"):
        node = make_node(args.op, args.dtypes, args.ndims)
        if not kernels.has_kernels(node.op):
            raise BadArguments(f"--arch is for GPU ops: {args.op} ({type(node.op).__name__}) has no CUDA kernels "
                               "(no '#section kernels' in its files, no c_kernels method)")
        if args.into is not None:
            check_into(args, node)
        try:
            known = supported_archs()
        except CompileError as exc:  # NVRTC is not installed: say how to get it
            raise CommandFailed(str(exc)) from None
        unknown = [arch for arch in archs if int(arch[3:].rstrip("abf")) not in known]
        if unknown:
            raise BadArguments(f"--arch: this NVRTC cannot compile for {', '.join(unknown)}; it knows "
                               f"{', '.join(f'sm_{n}' for n in known)}")
        for arch in archs:
            print(f"{arch}:")
            with building_for(arch):
                args.ship_extra = {"device": "cuda", "arch": arch}
                _kernels(args, node, arch)
                status = build_host(args)
            if status:
                return status
    return 0


def _kernels(args, node, arch):
    """Compile `node`'s kernels for `arch` into the cache (and with --into, ship them); say where."""
    try:
        module = kernels.kernel_module(node, arch)
        if args.into is not None:
            signature = ", ".join(str(v.type) for v in node.inputs)
            entry = ship_kernels(node, arch, args.into, {"op": args.op, "signature": signature})
    except CompileError as exc:
        raise CommandFailed(str(exc)) from None
    print(f"kernels {', '.join(module.symbols)}: cubin {len(module.cubin)} bytes, PTX {len(module.ptx)} characters")
    if args.into is not None:
        print(f"shipped kernels: {entry}")

"""A node's CUDA kernels: its `#section kernels` expanded, compiled by NVRTC, kept in the compile cache.

- `kernel_source(node, name)`: the node's kernels text with its macros (APPLY_SPECIFIC, DTYPE_*,
  TYPENUM_*, ITEMSIZE_* of the node) and `#line` directives at the user's file. A COp's comes from
  its files' `#section kernels`; an op with C methods may define `c_kernels(node, name) -> str`,
  which gets the same macros (no `#line`: the text has no file).
- `kernel_names(text)`: the names declared `extern "C" __global__ void APPLY_SPECIFIC(name)(...)`;
  in the cubin each is `<name>_<node name>` (`kernel_symbol`).
- `compile_kernels(node, arch="sm_90", options=(), name="node_0")`: the cubin (NVRTC, no GPU needed);
  `kernel_module(...)`: everything the runtime needs (key, cubin, PTX, symbols); `kernel_binary(key)`:
  (cubin, PTX) of a module compiled before, in this process or another.
- `kernel_request(node, arch, options, name)`: exactly what NVRTC receives (the kernel text, the folders and
  options it finds headers through, opkit's pre-included opkit_nvrtc.h, NVRTC's version, the architecture);
  `kernel_module_key(...)`: its identity (opkit.cop.toolchain.identity.request_key), the cache key. A shipped
  kernel's key (opkit.gpu.shipped_kernels) is the same request's, portable.

`name` is the node's name in its host module (`node_<index>`, as opkit.cop.generate names it): the host
code's `APPLY_SPECIFIC(axpy)` and the cubin's symbol must agree.
"""

from __future__ import annotations

import collections
import os
import pathlib
import re
from typing import NamedTuple

from opkit.cop.toolchain.identity import CompileRequest, Toolchain, _portable, request_key
from opkit.cop.toolchain.nvrtc import compile_cuda, normalize_arch, nvrtc_version
from opkit.cop.compiledir.private_fs import write_private
from opkit.cop.source import RESTORE_LINE_PRAGMA
from opkit.cop.source.macro_values import macro_values
from opkit.cop.source.macros import section_macros
from opkit.cop.source.headers import option_dirs
from opkit.cop.source.sections import mask_comments_and_literals
from opkit.cop.store.cache import ModuleCache, default_cache
from opkit.core.digest import sha256
from opkit.errors import CompileError

KERNEL_FORMAT = "opkit-kernels-1"
PRELUDE_DIR = pathlib.Path(__file__).resolve().parents[1] / "templates" / "nvrtc"
PRELUDE = "opkit_nvrtc.h"
SOURCE_NAME, PTX_NAME = "kernels.cu", "kernels.ptx"
DEFAULT_NAME = "node_0"

# What this process did with kernel modules: "built" (compiled and published), "loaded" (found on disk).
kernel_events: collections.Counter = collections.Counter()

_KERNEL = re.compile(r'\bextern[ \t\n]*"C"[ \t\n]*__global__[ \t\n]+(?:__launch_bounds__[ \t\n]*\([^)]*\)[ \t\n]*)?'
                     r'void[ \t\n]+APPLY_SPECIFIC[ \t\n]*\([ \t\n]*(\w+)[ \t\n]*\)')
_binaries: dict[str, tuple[bytes, str]] = {}


class KernelModule(NamedTuple):
    """What the runtime needs of a node's compiled kernels."""

    key: str  # the identity: kernel_binary(key) finds it again, in any process
    arch: str  # 'sm_90' (cubin and PTX) or 'compute_90' (PTX only)
    cubin: bytes
    ptx: str
    symbols: tuple[str, ...]  # the APPLY_SPECIFIC'd kernel names, as in the cubin


class KernelCache(ModuleCache):
    """Compiled kernels in the compile cache, entries like a module's: serving one returns its verified file."""

    events = kernel_events

    def _open(self, path: pathlib.Path, module_name: str):
        return path


_caches: dict[pathlib.Path, KernelCache] = {}


def kernel_cache() -> KernelCache:
    """Return the kernel cache at the compile cache's root (config.compiledir)."""
    root = default_cache().root
    cache = _caches.get(root)
    if cache is None:
        cache = _caches[root] = KernelCache(root)
    return cache


# ---- the text ----

def has_kernels(op) -> bool:
    """Return True if `op` has CUDA kernels: a `#section kernels` in its files or a `c_kernels` method."""
    return bool(getattr(op, "code_sections", {}).get("kernels")) or callable(getattr(op, "c_kernels", None))


def kernel_source(node, name: str = DEFAULT_NAME) -> str:
    """Return the node's kernels with their macros and `#line` directives; '' if its op has none."""
    op = node.op
    if getattr(op, "code_sections", {}).get("kernels"):
        return op._sections("kernels", node, name)
    method = getattr(op, "c_kernels", None)
    if not callable(method):
        return ""
    text = method(node, name)
    define, undef = section_macros("kernels", **macro_values(op, node, name))
    return f"{define}{text}{'' if text.endswith(chr(10)) else chr(10)}{undef}"


def kernel_names(text: str) -> list[str]:
    """Return the names of the kernels `text` declares `extern "C" __global__ void APPLY_SPECIFIC(name)`, in order.

    Declarations inside comments are not counted.
    """
    masked = mask_comments_and_literals(text)
    names = [m.group(1) for m in _KERNEL.finditer(text) if masked[m.start()] == text[m.start()]]
    return list(dict.fromkeys(names))


def kernel_symbol(kernel: str, name: str = DEFAULT_NAME) -> str:
    """Return the symbol of kernel `kernel` of the node named `name`: what APPLY_SPECIFIC(kernel) expands to."""
    return f"{kernel}_{name}"


def program_text(node, name: str = DEFAULT_NAME) -> str:
    """Return the text NVRTC compiles: the node's kernels, opkit's line pragma blanked (NVRTC would warn)."""
    text = kernel_source(node, name)
    if not text:
        op = node.op
        raise ValueError(f"{type(op).__name__} has no CUDA kernels: its C files have no '#section kernels' "
                         "and it defines no c_kernels(node, name) method")
    return text.replace(RESTORE_LINE_PRAGMA, "")


def kernel_include_dirs(op) -> list[str]:
    """Return the folders NVRTC searches: opkit's prelude, then the op's header folders (its C files' own)."""
    from opkit.cop.generate.cinterface import as_list, call

    # As the host module's collector asks (opkit.cop.generate.node_code): the keywords the method takes.
    dirs = [str(PRELUDE_DIR), *map(str, as_list(call(op, "c_header_dirs", c_compiler=None)))]
    return list(dict.fromkeys(dirs))


def kernel_options(options) -> list[str]:
    """Return the NVRTC options opkit passes: its prelude, --fmad=false unless the caller says otherwise (each
    + - * / rounded, as numpy, the CPU path and the CUDA interpreter do: NVRTC's default contracts a*b+c into one
    fma where it chooses), then the caller's."""
    if isinstance(options, str):
        raise TypeError(f"options must be a list of NVRTC options, not the string {options!r}")
    options = [*map(str, options)]
    chosen = any(option.lstrip("-").startswith(("fmad", "use_fast_math")) for option in options)
    return [f"--pre-include={PRELUDE}", *([] if chosen else ["--fmad=false"]), *options]


def contracting_options(options) -> list[str]:
    """Return the options among `options` under which NVRTC may fuse or approximate operations (the CUDA
    interpreter cannot know where, so it refuses them)."""
    return [option for option in map(str, options)
            if option.lstrip("-") in ("fmad=true", "use_fast_math") or option.lstrip("-").startswith("ftz=true")]


# ---- identity ----

def kernel_request(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME, *, nvrtc: str | None = None,
                   portable: bool = False) -> CompileRequest:
    """Return what NVRTC receives for the node's kernels (opkit.cop.toolchain.identity.CompileRequest): the kernel
    text, the folders (opkit's prelude, the op's) and the options (opkit's, the op's c_kernel_options, the
    caller's) it finds headers through, the pre-included prelude, NVRTC's version (`nvrtc`: asked when None)
    and the architecture. `kernel_module` compiles exactly this; a portable request (a shipped kernel's) names
    its `#line` files without their folders and is never given NVRTC's version."""
    text = program_text(node, name)
    options = tuple(kernel_options(op_kernel_options(node, options)))
    include_dirs = tuple(kernel_include_dirs(node.op))
    if nvrtc is None and not portable:
        nvrtc = f"nvrtc {'.'.join(map(str, nvrtc_version()))}"
    toolchain = Toolchain(tool=nvrtc or "", target=(normalize_arch(arch),))
    # NVRTC's long spelling of -I: the headers found there are part of the identity too; nothing else is searched.
    searched = [option.split("=", 1)[1] for option in options if option.startswith("--include-path=")]
    return CompileRequest((_portable(text) if portable else text,), include_dirs, options, toolchain=toolchain,
                          search=option_dirs([*include_dirs, *searched], options), code_text=lambda: text,
                          portable=portable)


def kernel_module_key(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME) -> str:
    """Return the cache key of the node's kernels compiled for `arch` with `options` (see the module's doc)."""
    return request_key(kernel_request(node, arch, options, name), KERNEL_FORMAT)


def op_kernel_options(node, options):
    """Return the NVRTC options the node's op asks for (`c_kernel_options(node)`, e.g. opkit's built-in GPU ops'
    --fmad=false: numpy rounds every operation), then the caller's `options`."""
    method = getattr(node.op, "c_kernel_options", None)
    if not callable(method) or isinstance(options, str):
        return options
    return [*map(str, method(node) or ()), *options]


def module_name_for(key: str) -> str:
    """Return the name of a kernel module's entry files."""
    return f"kernels_{key[:32]}"


# ---- compiling and finding ----

def kernel_module(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME) -> KernelModule:
    """Return the node's compiled kernels: from this process, from the compile cache, or compiled by NVRTC.

    A kernel error raises CompileError at the user's file:line, naming the node, with the source kept.
    """
    arch = normalize_arch(arch)
    request = kernel_request(node, arch, options, name)
    key = request_key(request, KERNEL_FORMAT)
    symbols = tuple(kernel_symbol(kernel, name) for kernel in kernel_names(request.code_text()))
    if key not in _binaries:
        try:
            _build(node, request, key, arch)
        except CompileError as exc:
            raise _with_node(exc, node, name) from None
    cubin, ptx = _binaries[key]
    return KernelModule(key, arch, cubin, ptx, symbols)


def compile_kernels(node, arch: str = "sm_90", options=(), name: str = DEFAULT_NAME) -> bytes:
    """Return the cubin of the node's `#section kernels` compiled by NVRTC for `arch` (no GPU needed).

    For a `compute_XX` arch, the PTX's bytes. Cached by identity (kernel_module_key) across processes.
    Without NVRTC (no `cuda` extra) the error says what is missing and how to install it, the whole story:
    its traceback stops here, at the caller's line, not in the toolchain's frames below.
    """
    from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError

    try:
        module = kernel_module(node, arch, options, name)
    except NvrtcNotFoundError as exc:
        raise exc.with_traceback(None) from None
    return module.cubin or module.ptx.encode("utf-8")


def _build(node, request, key, arch) -> None:
    """Load the kernels under `key` from the cache, or compile `request` and publish it; keep them in `_binaries`."""
    text, include_dirs, nvrtc_options = request.code_text(), list(request.include_dirs), list(request.compile_args)
    module_name = module_name_for(key)
    meta = {"description": f"CUDA kernels of {type(node.op).__name__} for {arch}"[:500], "arch": arch,
            "nvrtc": ".".join(map(str, nvrtc_version())), "options": nvrtc_options,
            "kernels": kernel_names(text)}

    def build(tmp_dir):
        tmp_dir = pathlib.Path(tmp_dir)
        source = tmp_dir / SOURCE_NAME
        write_private(source, text.encode("utf-8", "surrogateescape"), sync=False)
        compiled = compile_cuda(text, str(source), arch, nvrtc_options, include_dirs, source_path=source)
        write_private(tmp_dir / PTX_NAME, compiled.ptx.encode("utf-8"), sync=False)
        meta["ptx_sha256"] = sha256(compiled.ptx.encode("utf-8")).hexdigest()  # written into meta.json's extra
        main = tmp_dir / f"{module_name}.{'cubin' if compiled.cubin else 'ptx'}"
        write_private(main, compiled.cubin or compiled.ptx.encode("utf-8"), sync=False)  # checked by sha256
        return main

    cache = kernel_cache()
    path = cache.get_or_build(key, build, module_name=module_name, extra_meta=meta)
    try:
        _binaries[key] = _read_entry(pathlib.Path(path), key)
    except _DamagedEntry:  # a PTX file damaged since it was published: compiled again, as a damaged cubin is
        cache._loaded.pop(key, None)
        cache.discard(cache.entry_dir(key))
        path = cache.get_or_build(key, build, module_name=module_name, extra_meta=meta)
        _binaries[key] = _read_entry(pathlib.Path(path), key)


class _DamagedEntry(CompileError):
    """A kernel module's entry whose PTX or meta.json cannot be used."""


def _read_entry(main: pathlib.Path, key: str) -> tuple[bytes, str]:
    """Return (cubin, PTX) of a verified entry's main file; the PTX is checked against meta.json."""
    import json

    from opkit.cop.compiledir.layout import META

    data = main.read_bytes()
    entry = main.parent
    try:
        ptx_bytes = (entry / PTX_NAME).read_bytes()
        expected = json.loads((entry / META).read_text(encoding="utf-8"))["extra"]["ptx_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _DamagedEntry(f"the kernel module {entry} is damaged ({exc}); `opkit cache clear` removes it") from None
    if sha256(ptx_bytes).hexdigest() != expected:
        raise _DamagedEntry(f"the kernel module {entry}: {PTX_NAME} does not match its sha256 in meta.json; "
                           "`opkit cache clear` removes it")
    cubin = b"" if main.suffix == ".ptx" else data
    return cubin, ptx_bytes.decode("utf-8")


def kernel_binary(key: str) -> tuple[bytes, str]:
    """Return (cubin, PTX) of the kernel module `key` (kernel_module_key), compiled by this process or another.

    The cubin is b"" for a module compiled for `compute_XX` only. LookupError if no such module is cached.
    """
    known = _binaries.get(key)
    if known is None:
        path = kernel_cache().lookup(key, module_name_for(key))
        if path is None:
            raise LookupError(f"no compiled CUDA kernels with key {key} in the compile cache "
                              f"{kernel_cache().root}: compile them first (opkit.gpu.compile_kernels(node))")
        known = _binaries[key] = _read_entry(pathlib.Path(path), key)
    return known


def _with_node(exc: CompileError, node, name) -> CompileError:
    """Name the node whose kernels failed in the error, keeping its class and attributes."""
    op = node.op
    exc.message = (f"{exc.message}\nwhile compiling the CUDA kernels of:\n  {node}  [op {type(op).__module__}."
                   f"{type(op).__qualname__}, node name {name}]")
    exc.args = (exc.message,)
    exc.node = node
    return exc


# ---- `opkit check` ----

_DTYPE_USE = re.compile(r"\b(?:DTYPE|TYPENUM|ITEMSIZE)_(INPUT|OUTPUT)_(\d+)\b")
CHECK_ARCH, CHECK_DTYPE, CHECK_NAME = "sm_90", "float64", "check"


def check_kernels(path) -> list:
    """Compile a C file's kernels sections with NVRTC for sm_90, each DTYPE_* as float64; return Diagnostics.

    The lint (opkit.cop.source.lint) finds what can be seen in the text; this finds what only a compiler
    sees (an undeclared name, a type error), at the user's file:line. [] when the file has no kernels
    section or cannot be parsed (the lint reports that); NvrtcNotFoundError when NVRTC is not installed.
    """
    from opkit.cop.toolchain.nvrtc import log_diagnostics
    from opkit.cop.source.lint import Diagnostic
    from opkit.cop.source.macros import wrap_section
    from opkit.cop.source.sections import read_section_file, scan_text
    from opkit.errors import SectionError

    path = os.path.abspath(path)
    try:
        sections, _ = scan_text(read_section_file(path), path)
    except SectionError:
        return []
    kernels = [section for section in sections if section.tag == "kernels"]
    if not kernels:
        return []
    used = {"INPUT": -1, "OUTPUT": -1}
    for section in kernels:
        for role, index in _DTYPE_USE.findall(section.text):
            used[role] = max(used[role], int(index))
    define, undef = section_macros("kernels", name=CHECK_NAME, input_dtypes=[CHECK_DTYPE] * (used["INPUT"] + 1),
                                   output_dtypes=[CHECK_DTYPE] * (used["OUTPUT"] + 1))
    text = "".join(wrap_section(section, define, undef) for section in kernels)
    include_dirs = [str(PRELUDE_DIR), os.path.dirname(path)]
    try:
        compile_cuda(text, f"{os.path.basename(path)}.kernels.cu", CHECK_ARCH, kernel_options(()), include_dirs)
    except CompileError as exc:
        if not hasattr(exc, "output"):
            raise
        where = f"NVRTC, {CHECK_ARCH}, every DTYPE_* as npy_{CHECK_DTYPE}"
        return [Diagnostic(file if os.path.isabs(file) else path, line if os.path.isabs(file) else None,
                           severity, f"{message} ({where})")
                for file, line, severity, message in log_diagnostics(exc.output)]
    return []


def nvrtc_missing_message() -> str | None:
    """Return why NVRTC cannot be used here (the message names `pip install opkit-sdk[cuda]`), or None."""
    from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError

    try:
        nvrtc_version()
    except NvrtcNotFoundError as exc:
        return str(exc)
    return None


__all__ = ["KernelModule", "compile_kernels", "has_kernels", "kernel_binary", "kernel_module", "kernel_module_key",
           "kernel_names", "kernel_source", "kernel_symbol", "nvrtc_version"]

"""A node's CUDA kernels as NVRTC receives them: the request, its identity, and `opkit check`'s compile.

- `kernel_request(node, arch, options, name)`: exactly what NVRTC receives (the kernel text, the folders and
  options it finds headers through, opkit's pre-included opkit_nvrtc.h, NVRTC's version, the architecture);
  `kernel_module_key(...)`: its identity (opkit.cop.toolchain.identity.request_key), the kernel cache's key
  (opkit.cop.store.kernel_cache). A shipped kernel's key (opkit.gpu.shipped_kernels) is the same request's,
  portable.
- `kernel_options(options)`: the options opkit passes; `contracting_options(options)`: those under which NVRTC
  fuses or approximates operations (the CUDA interpreter refuses them).
- `check_kernels(path)`: a C file's kernels sections compiled for `opkit check`, as Diagnostics.
"""

from __future__ import annotations

import os
import pathlib
import re

from opkit.cop.generate.cinterface import as_list, call
from opkit.cop.source.headers import option_dirs
from opkit.cop.source.kernel_source import DEFAULT_NAME, op_kernel_options, program_text
from opkit.cop.source.lint import Diagnostic
from opkit.cop.source.macros import section_macros, wrap_section
from opkit.cop.source.sections import read_section_file, scan_text
from opkit.cop.toolchain.identity import CompileRequest, Toolchain, _portable, request_key
from opkit.cop.toolchain.nvrtc import (NvrtcNotFoundError, compile_cuda, log_diagnostics, normalize_arch,
                                       nvrtc_version)
from opkit.errors import CompileError, SectionError

KERNEL_FORMAT = "opkit-kernels-1"
PRELUDE_DIR = pathlib.Path(__file__).resolve().parents[2] / "templates" / "nvrtc"
PRELUDE = "opkit_nvrtc.h"


def kernel_include_dirs(op) -> list[str]:
    """Return the folders NVRTC searches: opkit's prelude, then the op's header folders (its C files' own)."""
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
    and the architecture. opkit.cop.kernels.kernel_module compiles exactly this; a portable request (a shipped
    kernel's) names its `#line` files without their folders and is never given NVRTC's version."""
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


def nvrtc_missing_message() -> str | None:
    """Return why NVRTC cannot be used here (the message names `pip install opkit-sdk[cuda]`), or None."""
    try:
        nvrtc_version()
    except NvrtcNotFoundError as exc:
        return str(exc)
    return None


# ---- `opkit check` ----

_DTYPE_USE = re.compile(r"\b(?:DTYPE|TYPENUM|ITEMSIZE)_(INPUT|OUTPUT)_(\d+)\b")
CHECK_ARCH, CHECK_DTYPE, CHECK_NAME = "sm_90", "float64", "check"


def check_kernels(path) -> list:
    """Compile a C file's kernels sections with NVRTC for sm_90, each DTYPE_* as float64; return Diagnostics.

    The lint (opkit.cop.source.lint) finds what can be seen in the text; this finds what only a compiler
    sees (an undeclared name, a type error), at the user's file:line. [] when the file has no kernels
    section or cannot be parsed (the lint reports that); NvrtcNotFoundError when NVRTC is not installed.
    """
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

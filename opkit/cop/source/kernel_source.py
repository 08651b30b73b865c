"""A node's CUDA kernels as written: its `#section kernels` (or `c_kernels`) with the node's macros.

- `has_kernels(op)`: whether an op has CUDA kernels at all;
- `kernel_source(node, name)`: the node's kernels text with its macros (APPLY_SPECIFIC, DTYPE_*, TYPENUM_*,
  ITEMSIZE_* of the node) and `#line` directives at the user's file. A COp's comes from its files'
  `#section kernels`; an op with C methods may define `c_kernels(node, name) -> str`, which gets the same
  macros (no `#line`: the text has no file);
- `kernel_names(text)`: the names declared `extern "C" __global__ void APPLY_SPECIFIC(name)(...)`; in the
  cubin each is `<name>_<node name>` (`kernel_symbol`);
- `program_text(node, name)`: the text NVRTC compiles (opkit.cop.toolchain.nvrtc_kernels);
- `op_kernel_options(node, options)`: the NVRTC options the node's op asks for, then the caller's.

`name` is the node's name in its host module (`node_<index>`, as opkit.cop.generate names it): the host
code's `APPLY_SPECIFIC(axpy)` and the cubin's symbol must agree.
"""

from __future__ import annotations

import re

from opkit.cop.source import RESTORE_LINE_PRAGMA
from opkit.cop.source.macro_values import macro_values
from opkit.cop.source.macros import section_macros
from opkit.cop.source.sections import mask_comments_and_literals

DEFAULT_NAME = "node_0"

_KERNEL = re.compile(r'\bextern[ \t\n]*"C"[ \t\n]*__global__[ \t\n]+(?:__launch_bounds__[ \t\n]*\([^)]*\)[ \t\n]*)?'
                     r'void[ \t\n]+APPLY_SPECIFIC[ \t\n]*\([ \t\n]*(\w+)[ \t\n]*\)')


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


def op_kernel_options(node, options):
    """Return the NVRTC options the node's op asks for (`c_kernel_options(node)`, e.g. opkit's built-in GPU ops'
    --fmad=false: numpy rounds every operation), then the caller's `options`."""
    method = getattr(node.op, "c_kernel_options", None)
    if not callable(method) or isinstance(options, str):
        return options
    return [*map(str, method(node) or ()), *options]

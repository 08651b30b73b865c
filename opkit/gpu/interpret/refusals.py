"""What opkit's CUDA interpreter (device="cuda-interpret") cannot run faithfully, refused before g++ sees it.

The interpreter (opkit/templates/gpu/cuda_interpret.h) runs a `kernels` section on the CPU; it must
never give an answer a GPU would not. A construct it cannot run as a GPU does is refused here with the
construct's name, the user's file:line (read from the text's `#line` directives) and what to do
instead: those of the table's REFUSED (opkit.gpu.interpret.builtins), CUDA's headers, and a call of an
intrinsic (`__name(`) that is not one of the table's built-ins (ALLOWED). The limits are documented in
docs/gpu_interpreter.md.

`interpretable_text(text, path)` is what the host module compiles: it gives dynamic shared memory
(`extern __shared__ T name[];`) the launch's `shared_bytes`, then checks the text.
"""

from __future__ import annotations

import re

from opkit.cop.source.kernel_source import op_kernel_options
from opkit.cop.source.sections import mask_comments_and_literals
from opkit.cop.toolchain.nvrtc_kernels import contracting_options
from opkit.errors import CompileError
from opkit.gpu.interpret.builtins import ALLOWED, COMPILER, COMPILER_PREFIXES, REFUSED


class KernelNotInterpretable(CompileError, NotImplementedError):
    """A `kernels` section uses a construct the CUDA interpreter cannot run faithfully."""

    def __init__(self, message, path=None, line=None, construct=None):
        self.path = None if path is None else str(path)
        self.line = line
        self.construct = construct
        super().__init__(message, source_path=self.path)


_REFUSED = tuple((re.compile(pattern), name, why, instead) for pattern, name, why, instead in REFUSED)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", re.M)
_CUDA_HEADER = re.compile(r"^(?:cuda\w*\.h|cuda/|cub/|thrust/|mma\.h|sm_\d+_intrinsics\.h|cooperative_groups|"
                          r"curand\w*\.h|cufft\w*\.h|cublas\w*\.h|vector_types\.h|device_\w+\.h)")
_LINE = re.compile(r'^[ \t]*#[ \t]*line[ \t]+(\d+)(?:[ \t]+("(?:[^"\\]|\\.)*"))?', re.M)
_DYNAMIC_SHARED = re.compile(r"\bextern\s+__shared__\s+(?P<type>[^;\[\]{}()]*?(?:\([^()]*\)[^;\[\]{}()]*?)*)"
                             r"\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;")
_ALIGNMENT = re.compile(r"\b(?:__align__|alignas)\s*\([^()]*\)")
_LAUNCH_BOUNDS = re.compile(r"\b__launch_bounds__\s*\(")
_DECLARATOR = re.compile(r"\s*(APPLY_SPECIFIC\s*\(\s*\w+\s*\)|[A-Za-z_]\w*)\s*\(")
_INTRINSIC_CALL = re.compile(r"\b(__[A-Za-z]\w*)\s*\(")
# Reserved names the kernels text defines itself: a macro, or a function with its body.
_DEFINED = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(__\w+)|\b(__\w+)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)"
                      r"\s*(?:const\s*)?\{", re.M)


def _unquote(literal: str) -> str:
    """Return the text of the C string literal `literal` (as sections.c_string_literal writes them)."""
    body = literal[1:-1]
    return re.sub(r"\\([0-7]{1,3}|.)", lambda m: chr(int(m.group(1), 8)) if m.group(1)[0] in "01234567"
                  else m.group(1), body)


def _places(text: str, path):
    """Return a function from a 0-based line index of `text` to (file, 1-based line), following `#line`."""
    directives = []  # (index of the directive's line, its line number, its file)
    file = str(path)
    for match in _LINE.finditer(text):
        if match.group(2):
            file = _unquote(match.group(2))
        directives.append((text.count("\n", 0, match.start()), int(match.group(1)), file))

    def place(index):
        found = None
        for directive in directives:
            if directive[0] >= index:
                break
            found = directive
        if found is None:
            return str(path), index + 1
        return found[2], found[1] + index - found[0] - 1

    return place


def _refuse(place, text, offset, construct, why, instead):
    where_file, where_line = place(text.count("\n", 0, offset))
    message = (f"{where_file}:{where_line}: the CUDA interpreter (device='cuda-interpret') cannot run {construct}: "
               f"{why}; {instead} (docs/gpu_interpreter.md lists what it runs)")
    raise KernelNotInterpretable(message, where_file, where_line, construct)


def check_interpretable(text: str, path) -> None:
    """Raise KernelNotInterpretable naming the first construct of `text` the interpreter cannot run faithfully.

    `text` is a node's expanded `kernels` section (with `#line` directives); `path` names it where no
    directive does.
    """
    place = _places(text, path)
    masked = mask_comments_and_literals(text)
    for match in _INCLUDE.finditer(text):
        if masked[match.start():match.end()].lstrip().startswith("#") and _CUDA_HEADER.match(match.group(1)):
            _refuse(place, text, match.start(), f"#include <{match.group(1)}>",
                    "the interpreter gives kernels CUDA's built-ins, not CUDA's headers",
                    "use the built-ins alone")
        if masked[match.start():match.end()].lstrip().startswith("#") and match.group(1) in ("cassert", "assert.h"):
            _refuse(place, text, match.start(), f"#include <{match.group(1)}>",
                    "it would give kernels the C library's assert, which NDEBUG turns off, while a GPU checks them",
                    "leave it out: assert is built in for kernels (NVRTC's too)")
    first = None
    for pattern, construct, why, instead in _REFUSED:
        match = pattern.search(masked)
        if match and (first is None or match.start() < first[0]):
            first = (match.start(), construct, why, instead)
    unknown = _unknown_intrinsic(masked)
    if unknown is not None and (first is None or unknown.start() < first[0]):
        first = (unknown.start(), unknown.group(1), "it is not one of the CUDA built-ins the interpreter gives kernels "
                 "(opkit.gpu.interpret.builtins)", "compute it with those, or run the kernels on device='cuda'")
    if first is not None:
        _refuse(place, text, *first)


def _unknown_intrinsic(masked: str):
    """Return the first call of a reserved `__name` that is neither a built-in (ALLOWED), the compiler's, one a
    REFUSED pattern names (refused with its own reason), nor defined by the text itself; else None."""
    defined = {a or b for a, b in _DEFINED.findall(masked)}
    for match in _INTRINSIC_CALL.finditer(masked):
        name = match.group(1)
        if name in ALLOWED or name in COMPILER or name.startswith(COMPILER_PREFIXES) or name in defined:
            continue
        if not any(pattern.match(f"{name}(") for pattern, *_ in _REFUSED):
            return match
    return None


def _past_closing(masked: str, start: int) -> int:
    """Return the index just past the bracket closing the one at `start` ("(" or "{"), or -1."""
    opening = masked[start]
    closing = ")" if opening == "(" else "}"
    depth = 0
    for index in range(start, len(masked)):
        if masked[index] == opening:
            depth += 1
        elif masked[index] == closing:
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def _first_argument(text: str) -> str:
    """Return the first top-level comma-separated argument of `text`."""
    depth = 0
    for index, char in enumerate(text):
        depth += 1 if char in "(<[" else -1 if char in ")>]" else 0
        if char == "," and depth == 0:
            return text[:index].strip()
    return text.strip()


def _launch_bounds(text: str, masked: str):
    """Yield (index just past a kernel's body, C++ that registers its __launch_bounds__ maximum)."""
    for number, match in enumerate(_LAUNCH_BOUNDS.finditer(masked)):
        arguments_end = _past_closing(masked, match.end() - 1)
        declarator = _DECLARATOR.match(masked, arguments_end) if arguments_end > 0 else None
        if declarator is None:
            continue
        parameters_end = _past_closing(masked, declarator.end() - 1)
        brace, semicolon = masked.find("{", parameters_end), masked.find(";", parameters_end)
        if parameters_end < 0 or brace < 0 or 0 <= semicolon < brace:
            continue  # a declaration: its definition carries the bounds
        body_end = _past_closing(masked, brace)
        if body_end < 0:
            continue
        kernel = text[declarator.start(1):declarator.end(1)]
        maximum = _first_argument(text[match.end():arguments_end - 1])
        yield body_end, (f" static const int opkit_launch_bounds_{number} = ::opkit_interp::launch_bounds("
                         f"(const void*)&{kernel}, (long long)({maximum}));")


def interpretable_text(text: str, path) -> str:
    """Return `text` as the interpreter compiles it, then checked (check_interpretable).

    Each `extern __shared__ T name[];` (dynamic shared memory, at any scope) becomes, on the same line, an
    object `name` that indexes and converts to `T*` like the array: the launch's `shared_bytes`, 16-byte
    aligned, one buffer per block as on a GPU. A kernel declared with `__launch_bounds__(max, ...)` gets,
    after its closing brace on the same line, the registration of `max`: a launch of more threads per
    block is refused (cudaErrorLaunchOutOfResources), as on a GPU.
    """
    masked = mask_comments_and_literals(text)
    edits = []  # (start, end, replacement)
    for match in _DYNAMIC_SHARED.finditer(masked):
        element = _ALIGNMENT.sub(" ", text[match.start("type"):match.end("type")]).strip()
        if not element:
            continue
        name = match.group("name")
        edits.append((match.start(), match.end(),
                      f"struct opkit_dynamic_shared_{name} {{ {element}* get() const {{ return ({element}*)"
                      f"::opkit_interp::dynamic_shared(); }} operator {element}*() const {{ return get(); }} "
                      f"{element}& operator[](long long i) const {{ return get()[i]; }} }} const {name} = {{}};"))
    edits += [(end, end, registration) for end, registration in _launch_bounds(text, masked)]
    pieces, last = [], 0
    for start, end, replacement in sorted(edits):
        pieces += [text[last:start], replacement]
        last = end
    rewritten = "".join(pieces) + text[last:]
    check_interpretable(rewritten, path)
    return rewritten


def interpretable(node, text):
    """Return the node's kernels `text` as the interpreter compiles it (dynamic shared memory given the launch's
    bytes), or raise KernelNotInterpretable naming what it cannot run faithfully, at the user's file:line: a
    construct of the text, or an NVRTC option of the op's (c_kernel_options) that fuses or approximates."""
    files = getattr(node.op, "func_files", None) or (f"<kernels of {type(node.op).__name__}>",)
    refused = contracting_options(op_kernel_options(node, ()))
    if refused:
        raise KernelNotInterpretable(
            f"{type(node.op).__name__}'s kernels ask NVRTC for {', '.join(refused)} (c_kernel_options): NVRTC then "
            f"fuses or approximates operations where it chooses, which the CUDA interpreter cannot reproduce; "
            f"run them on device='cuda', or drop the option to test them here", path=files[0], construct=refused[0])
    return interpretable_text(text, files[0])

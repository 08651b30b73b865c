"""What opkit's CUDA interpreter (device="cuda-interpret") cannot run faithfully, refused before g++ sees it.

The interpreter (opkit/templates/gpu/cuda_interpret.h) runs a `kernels` section on the CPU; it must
never give an answer a GPU would not. A construct it cannot run as a GPU does is refused here with the
construct's name, the user's file:line (read from the text's `#line` directives) and what to do
instead. The limits are documented in docs/gpu_interpreter.md.

`interpretable_text(text, path)` is what the host module compiles: it gives dynamic shared memory
(`extern __shared__ T name[];`) the launch's `shared_bytes`, then checks the text.
"""

from __future__ import annotations

import re

from opkit.cop.source.sections import mask_comments_and_literals
from opkit.errors import CompileError


class KernelNotInterpretable(CompileError, NotImplementedError):
    """A `kernels` section uses a construct the CUDA interpreter cannot run faithfully."""

    def __init__(self, message, path=None, line=None, construct=None):
        self.path = None if path is None else str(path)
        self.line = line
        self.construct = construct
        super().__init__(message, source_path=self.path)


# (pattern on the text with comments and literals blanked, the construct's name, why, what to do instead)
REFUSED = (
    (r"\b(?:asm|__asm__|__asm)\b", "inline assembly (asm)", "PTX has no meaning on the CPU",
     "write it in CUDA C++"),
    (r"\bextern\s+__shared__\b", "dynamic shared memory (extern __shared__) in this form",
     "the interpreter gives the launch's shared_bytes to `extern __shared__ T name[];` declarations made through "
     "opkit.cop.source.kernel_refusals.interpretable_text", "declare it `extern __shared__ T name[];`"),
    (r"\bcooperative_groups\b|\bcg::|\bthis_grid\b|\bthis_thread_block\b", "cooperative groups",
     "grid-wide and group synchronization are not modelled", "use __syncthreads and the *_sync warp functions"),
    (r"\bclock(?:64)?\s*\(|%globaltimer", "clock()/clock64()", "the GPU's cycle counters have no CPU equivalent",
     "time launches from the host"),
    (r"\b__nanosleep\b", "__nanosleep", "threads of a block run one after another until a barrier: a sleeping "
     "thread waiting for another would never see it move", "synchronize with __syncthreads"),
    (r"\btexture\s*<|\b(?:tex[123]D\w*|tex1Dfetch|texCubemap\w*|tex2Dgather|surf[123]D(?:read|write)\w*)\s*(?:<[^<>;]*>)?\s*\(|"
     r"\bcuda(?:Texture|Surface)Object_t\b", "textures and surfaces", "texture filtering and addressing are not "
     "modelled", "read global memory (__ldg)"),
    (r"\b(?:__half2?|half2|__nv_bfloat162?|__float2half\w*|__half2float|__float2bfloat16\w*|__bfloat162float|"
     r"__h(?:add|sub|mul|div|fma|neg|eq|ne|lt|le|gt|ge)2?\w*)\b|cuda_fp16|cuda_bf16",
     "half precision (__half, __nv_bfloat16)", "the host has no half arithmetic that rounds as the GPU's does",
     "compute in float and convert at the ends"),
    (r"\b__(?:expf|exp10f|logf|log2f|log10f|sinf|cosf|tanf|sincosf|powf|fdividef)\b",
     "a fast approximate intrinsic", "the GPU computes it with a hardware approximation whose result the host "
     "cannot reproduce", "use the accurate function (expf, sinf, a / b, ...)"),
    (r"\b__frsqrt_rn\b", "__frsqrt_rn", "the host has no correctly rounded reciprocal square root",
     "use 1.0f / sqrtf(x) (two roundings, on a GPU too)"),
    (r"\b(?!__(?:float|double)2u?(?:int|ll)_r[zud]\b)__\w+_r[zud]\b",
     "a directed-rounding intrinsic (_rz, _ru, _rd)", "the interpreter rounds arithmetic to nearest (of the "
     "directed roundings it runs only the float-to-integer conversions)", "use the _rn form or plain arithmetic"),
    (r"\b__activemask\s*\(", "__activemask()", "which threads a GPU runs together is not modelled",
     "pass the mask of the threads that take part"),
    (r"\b__(?:shfl|shfl_up|shfl_down|shfl_xor|ballot|all|any)\s*\(", "a warp function without _sync",
     "CUDA removed them (sm_70 and later)", "use the *_sync form with a mask"),
    (r"\bvolatile\b", "volatile", "it serves warp-synchronous code (threads of a warp exchanging values through "
     "memory without __syncwarp) and spin-waits on other threads; the interpreter runs a warp's threads one after "
     "another, so such reads would see other values than on a GPU, or wait forever",
     "exchange values with __shfl*_sync or separate the steps with __syncwarp()/__syncthreads()"),
    (r"\b__managed__\b", "managed memory (__managed__)", "the host module has no managed memory",
     "pass the array as an argument"),
    (r"<<<", "a kernel launch inside kernels (dynamic parallelism)", "the interpreter runs one launch at a time",
     "launch from the host code with OPKIT_LAUNCH"),
    (r"\bwmma::|\bnvcuda::|\bmma_sync\b", "tensor-core matrix operations (wmma)",
     "their fragment layouts are the hardware's", "write the product with ordinary arithmetic"),
)
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
    if first is not None:
        _refuse(place, text, *first)


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

"""The one table of the CUDA interpreter's contract: the CUDA built-ins it gives kernels, and what it refuses.

`BUILTINS` lists, by group, every name opkit/templates/gpu/cuda_interpret*.h defines for kernels: the
qualifiers, the variables, the function-like macros and the device functions (with CUDA's overloads). From it:

- `render_header()` is cuda_interpret_table.h, the headers' list: cuda_interpret.h includes it last and checks
  that each function and variable is declared (a using-declaration names every overload) and each macro
  defined, so a name this table lists and the headers lack fails every interpreted module's compile. The file is
  written by `python -m opkit.gpu.interpret.builtins` and tests/gpu/test_interpreter_table.py checks that it is
  this table's rendering, and that the headers define no built-in this table does not list.
- `ALLOWED` is the allow-list opkit.gpu.interpret.refusals checks a kernel against: a call of a name of CUDA's
  reserved form `__name` that is not here (nor a compiler built-in, COMPILER) is refused with its name, where
  g++ would give a page of the headers' overloads.

`REFUSED` is the rest of the contract: the constructs the interpreter refuses before g++ sees a kernel, each
with why and what to write instead (docs/gpu_interpreter.md lists both, for readers).
"""

from __future__ import annotations

import pathlib

HEADER = pathlib.Path(__file__).resolve().parents[2] / "templates" / "gpu" / "cuda_interpret_table.h"

_ROUNDINGS = ("rn", "rz", "rd", "ru")
_INTEGERS = ("int", "uint", "ll", "ull")
_FLOATS = ("float", "double")
_ATOMICS = ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec", "atomicCAS",
            "atomicAnd", "atomicOr", "atomicXor")

# (group, kind, names). Kinds: "qualifier" and "macro" are macros (checked with #ifndef); "variable" and
# "function" are declared names (checked with a using-declaration), except the variables CUDA defines per thread,
# which are macros here ("macro").
BUILTINS = (
    ("qualifiers", "qualifier", ("__global__", "__device__", "__host__", "__constant__", "__forceinline__",
                                 "__noinline__", "__launch_bounds__", "__grid_constant__", "__align__", "__shared__")),
    ("thread and block indices", "macro", ("threadIdx", "blockIdx", "blockDim", "gridDim")),
    ("warp size", "variable", ("warpSize",)),
    ("block barriers", "macro", ("__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or")),
    ("assertions and traps", "macro", ("assert", "__trap")),
    ("warp collectives", "function", (
        "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
        "__all_sync", "__any_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync")),
    ("memory fences, cached loads and stores", "function", (
        "__threadfence", "__threadfence_block", "__threadfence_system", "__ldg", "__ldca", "__ldcg", "__ldcs",
        "__ldlu", "__ldcv", "__stwb", "__stcg", "__stcs", "__stwt")),
    ("atomics", "function", (*_ATOMICS, *(f"{name}_{scope}" for name in _ATOMICS for scope in ("block", "system")))),
    ("min and max", "function", ("min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax")),
    ("integer intrinsics", "function", (
        "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev", "__brevll", "__mulhi", "__umulhi",
        "__mul64hi", "__umul64hi", "__mul24", "__umul24", "__funnelshift_l", "__funnelshift_lc", "__funnelshift_r",
        "__funnelshift_rc", "__byte_perm", "__sad", "__usad")),
    ("conversions", "function", (
        *(f"__{f}2{i}_{r}" for f in _FLOATS for i in _INTEGERS for r in _ROUNDINGS),
        *(f"__{i}2{f}_rn" for f in _FLOATS for i in _INTEGERS), "__double2float_rn")),
    ("reinterpretations", "function", ("__float_as_int", "__float_as_uint", "__int_as_float", "__uint_as_float",
                                       "__double_as_longlong", "__longlong_as_double")),
    ("exactly rounded arithmetic", "function", (
        "__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__frcp_rn", "__fsqrt_rn", "__fmaf_rn", "__dadd_rn",
        "__dsub_rn", "__dmul_rn", "__ddiv_rn", "__drcp_rn", "__dsqrt_rn", "__fma_rn", "__saturatef", "saturate")),
    ("functions <cmath> lacks", "function", ("rsqrtf", "rsqrt", "rcbrtf", "rcbrt", "sinpif", "sinpi", "cospif",
                                             "cospi", "normcdff", "normcdf", "sincospif", "sincospi")),
)

# Names of the reserved `__name` form a kernel may use that are the compiler's, not CUDA's device functions:
# NVRTC and g++ both know them (and `__builtin_*`).
COMPILER = frozenset(["__restrict__", "__restrict", "__inline__", "__attribute__", "__typeof__", "__alignof__",
                      "__extension__", "__has_include", "__has_builtin", "__func__", "__FILE__", "__LINE__",
                      "__COUNTER__", "__VA_ARGS__", "__volatile__", "__int128", "__PRETTY_FUNCTION__",
                      "__FUNCTION__"])
COMPILER_PREFIXES = ("__builtin_",)


def names(kinds=None) -> tuple[str, ...]:
    """Return the built-ins' names, in the table's order (of the `kinds` given, or all)."""
    return tuple(name for _, kind, group in BUILTINS if kinds is None or kind in kinds for name in group)


ALLOWED = frozenset(name for name in names() if name.startswith("__"))

# (pattern on the text with comments and literals blanked, the construct's name, why, what to do instead)
REFUSED = (
    (r"\b(?:asm|__asm__|__asm)\b", "inline assembly (asm)", "PTX has no meaning on the CPU",
     "write it in CUDA C++"),
    (r"\bextern\s+__shared__\b", "dynamic shared memory (extern __shared__) in this form",
     "the interpreter gives the launch's shared_bytes to `extern __shared__ T name[];` declarations made through "
     "opkit.gpu.interpret.refusals.interpretable_text", "declare it `extern __shared__ T name[];`"),
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


def render_header() -> str:
    """Return cuda_interpret_table.h: the table's built-ins as the headers check them (see the module's doc)."""
    lines = ["// GENERATED from opkit/gpu/interpret/builtins.py (python -m opkit.gpu.interpret.builtins): do not edit.",
             "// The CUDA built-ins opkit's interpreter gives kernels, from the table opkit.gpu.interpret.refusals",
             "// takes its allow-list from. cuda_interpret.h includes this last: each macro must be defined, and each",
             "// function (every overload) and variable declared, or every interpreted module fails to compile.",
             "#ifndef OPKIT_CUDA_INTERPRET_TABLE_H", "#define OPKIT_CUDA_INTERPRET_TABLE_H"]
    lines += ["namespace opkit_interp {", "namespace table {"]
    for group, kind, group_names in BUILTINS:
        lines.append(f"// {group}")
        if kind in ("qualifier", "macro"):
            lines += [line for name in group_names for line in (
                f"#ifndef {name}", f'#error "cuda_interpret.h does not define {name} (opkit.gpu.interpret.builtins)"',
                "#endif")]
        else:
            lines += [f"using ::{name};" for name in group_names]
    lines += ["}  // namespace table", "}  // namespace opkit_interp", "#endif  // OPKIT_CUDA_INTERPRET_TABLE_H"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    HEADER.write_text(render_header(), encoding="utf-8")
    print(f"wrote {HEADER}")

"""opkit's own compiler flags: the one list every module is built with, from opkit's configuration.

`module_flags(march, openmp)` is that list (config.sanitize's, config.cmodule__debug's and
config.cflags among them); `build_flags()` is this machine's (config.march, and OpenMP where
the compiler has it), a shipped module's is opkit.cop.store.shipped.shipping_flags and a
function's token's is opkit.cop.toolchain.identity.requested_toolchain: each takes it from here.
"""

from __future__ import annotations

import functools

from opkit.config import cflag_words, config
from opkit.cop.toolchain.compiler import find_compiler
from opkit.cop.toolchain.host import OPENMP_FLAG, openmp_supported

# No -g and no -Wall: debug info and warnings cost compile time and nobody reads them here.
# -ffp-contract=off: no fused multiply-add where the source has a multiply then an add, so + - * /
# give numpy's bits even where -march enables FMA instructions. -fopenmp-simd: `#pragma omp simd`
# loops vectorize (no threads, no runtime library).
# Hidden visibility: a module exports only PyInit_<name>, so modules loaded with RTLD_GLOBAL
# never bind each other's functions (two ops' support code may define the same names).
BASE_COMPILE_ARGS = ("-std=c++17", "-O2", "-ffp-contract=off", "-fopenmp-simd", "-fPIC", "-pipe", "-DNDEBUG", "-fvisibility=hidden",
                     "-fvisibility-inlines-hidden", "-DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION",
                     # The C API of the numpy that runs (every module is built against it): numpy 2's
                     # PyArray_Descr fields (`->elsize`, Theano's Gemm reads them) are hidden below 2.0's target.
                     "-DNPY_TARGET_VERSION=NPY_API_VERSION")
# Compile flags that the link needs too (-fopenmp links the OpenMP runtime).
LINK_TOO = ("-fopenmp",)


def build_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the (compile, link) arguments `build_extension` adds from opkit's config.

    `-march=` from config.march, and -fopenmp (compile and link) when modules use
    OpenMP: every module may run its large loops on several threads.
    """
    return module_flags(config.march, modules_use_openmp())


def module_flags(march: str, openmp: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the (compile, link) arguments opkit gives the compiler for a module built for `march` ('': the
    compiler's default), with OpenMP or not: the one list of opkit's flags, config.sanitize's,
    config.cmodule__debug's and config.cflags among them (build_flags, a shipped module's and a token's)."""
    return _module_flags(march or "", bool(openmp), config.sanitize or "", bool(config.cmodule__debug),
                         config.cflags or "")


@functools.lru_cache(maxsize=64)
def _module_flags(march, openmp, sanitize, debug, cflags):
    compile_args, link_args = list(BASE_COMPILE_ARGS), []
    if march:
        compile_args.append(f"-march={march}")
    if openmp:
        compile_args.append(OPENMP_FLAG)
        link_args.append(OPENMP_FLAG)
    compile_args += _sanitize_flags(sanitize) + _debug_flags(debug)
    link_args += _sanitize_flags(sanitize)
    words = cflag_words(cflags)
    return tuple(compile_args + words), tuple(link_args + words)


def debug_flags() -> list[str]:
    """Return the compile flags of config.cmodule__debug: the macro DEBUG, defined empty as PyTensor's
    ``#define DEBUG`` (part of every module's identity, as the flag is of PyTensor's key)."""
    return _debug_flags(config.cmodule__debug)


def _debug_flags(debug) -> list[str]:
    return ["-DDEBUG="] if debug else []


def sanitize_flags() -> list[str]:
    """Return the compile (and link) flags of config.sanitize: part of every module's identity."""
    return _sanitize_flags(config.sanitize)


def _sanitize_flags(sanitize) -> list[str]:
    if sanitize == "address":
        # Without a frame pointer, ASan's stack traces lose frames; -g: reports name source lines.
        return ["-fsanitize=address", "-fno-omit-frame-pointer", "-g"]
    return []


def modules_use_openmp() -> bool:
    """Return True if modules are compiled with -fopenmp: config.openmp is on and the compiler can."""
    return bool(config.openmp) and openmp_supported(find_compiler())

"""A BLAS for C ops: `config.blas__ldflags` found on first use, opkit's prototypes header, Theano's helpers.

An op that calls gemm does what Theano's and PyTensor's BLAS ops do: it puts
`blas_header_text()` in its `c_support_code` and returns `ldflags()` from
`c_libraries`, `ldflags(libs=False, libs_dir=True)` from `c_lib_dirs` and
`ldflags(libs=False, flags=True)` from `c_compile_args`. The libraries, their
directories and flags are then part of the module's identity (another BLAS is
another module), and opkit links with an rpath to each directory, so a fresh
process loads the module without LD_LIBRARY_PATH.

An empty `config.blas__ldflags` means "no BLAS" (Theano's meaning): `ldflags()`
is then empty, so an op may test `if not config.blas.ldflags` and take another
path; a call to a BLAS routine through `blas_header_text()` is then a compile
error that says how to get one (Theano compiled a slow numpy-based gemm instead).
Where the flags come from, in order, is in `detect_ldflags()` and docs/blas.md.
"""

from __future__ import annotations

import functools
import os
import pathlib
import sys

from opkit.config import config, split_ldflags
from opkit.cop.toolchain import host
from opkit.cop.toolchain.compiler import find_compiler, run_tool
from opkit.errors import CompileError

HEADER_DIR = pathlib.Path(__file__).resolve().parents[1] / "templates" / "blas"
HEADER = "opkit_blas.h"
SCIPY_NAMES = "OPKIT_BLAS_SCIPY_NAMES"  # defined: every BLAS name is mapped onto scipy_<name> (the wheel's)
NO_BLAS = "OPKIT_BLAS_NONE"  # defined: no BLAS, and a call to a BLAS routine is a compile error
HEADER_VERSION = 1
PROBE_VERSION = "1"  # part of every kept probe answer's name: a changed probe asks again
INSTALL_HINT = "pip install 'opkit-sdk[blas]' (the scipy-openblas32 wheel)"
# Tuned BLAS libraries looked for by name, best first; "blas" (the system's generic one) comes after the wheel.
TUNED = ("mkl_rt", "openblas", "flexiblas", "blis")
_detected: str | None = None  # what detect_ldflags() found in this process


class BlasError(CompileError):
    """No working BLAS for an op that calls one: the message says what to set or install."""

    short = ""  # the message on one line, for `opkit doctor`


def _parts(text: str) -> dict[str, list[str]]:
    """Split flags into libraries (-l), library directories (-L), include directories (-I) and the rest."""
    parts: dict[str, list[str]] = {"libs": [], "dirs": [], "includes": [], "other": []}
    for word in split_ldflags(text):
        kind = {"-l": "libs", "-L": "dirs", "-I": "includes"}.get(word[:2])
        if kind:
            parts[kind].append(word[2:])
        else:
            parts["other"].append(word)
    return parts


def uses_scipy_names(text: str) -> bool:
    """Return True if the flags link the scipy-openblas32 wheel's library, whose symbols are prefixed scipy_."""
    return any(lib.startswith("scipy_openblas") for lib in _parts(text)["libs"]) if text.strip() else False


def _flags() -> str:
    return config.blas__ldflags


def ldflags(libs=True, flags=False, libs_dir=False, include_dir=False) -> list[str]:
    """Return parts of config.blas__ldflags, as Theano's `ldflags`: for c_libraries, c_lib_dirs, c_compile_args.

    `libs`: the library names of -l flags; `libs_dir`: the directories of -L flags;
    `include_dir`: the directories of -I flags; `flags`: every other flag, an rpath
    for each -L directory, and -DOPKIT_BLAS_SCIPY_NAMES when the BLAS is the
    scipy-openblas32 wheel. Without a BLAS (empty flags) the list is empty, but
    for `flags`: -DOPKIT_BLAS_NONE, which makes a call through opkit_blas.h a
    compile error saying how to get one. Flags that do not link a working BLAS
    raise BlasError.
    """
    text = _flags()
    if not text.strip():
        return [f"-D{NO_BLAS}"] if flags else []
    verify(text)
    parts = _parts(text)
    found = []
    if libs_dir:
        found += parts["dirs"]
    if include_dir:
        found += parts["includes"]
    if libs:
        found += parts["libs"]
    if flags:
        found += parts["other"] + [f"-Wl,-rpath,{d}" for d in parts["dirs"]]
        found += [f"-D{SCIPY_NAMES}"] if uses_scipy_names(text) else []
    return found


def _read(name: str) -> str:
    return (HEADER_DIR / name).read_text(encoding="utf-8")


def _names_prefix(text: str) -> str:
    """Return the #define that maps opkit_blas.h onto the BLAS of `text`: the wheel's names, or no BLAS."""
    name = SCIPY_NAMES if uses_scipy_names(text) else NO_BLAS if not text.strip() else None
    return f"#ifndef {name}\n#define {name} 1\n#endif\n" if name else ""


def blas_header_text() -> str:
    """Return the C prototypes of the Fortran BLAS and CBLAS for the BLAS in use (for c_support_code).

    Without a BLAS (empty config.blas__ldflags) the text compiles, so an op can
    test the flag and take another path, but a call to a BLAS routine is a compile
    error that says how to get one. Flags that do not link a BLAS raise BlasError.
    """
    text = _flags()
    if text.strip():
        verify(text)
    return _names_prefix(text) + _read(HEADER)


def cblas_header_text() -> str:
    """Return the CBLAS prototypes: opkit's header declares both interfaces, so this is blas_header_text()."""
    return blas_header_text()


def blas_header_version() -> tuple[int, ...]:
    """Return the version of opkit's BLAS header, for an op's c_code_cache_version (a hint: content is the key)."""
    return (HEADER_VERSION,)


def openblas_threads_text() -> str:
    """Return the prototypes of openblas_set_num_threads & co. (mapped onto the wheel's names when it is used)."""
    return _names_prefix(_flags()) + _read("openblas_threads.h")


def mkl_threads_text() -> str:
    """Return the prototypes of MKL's thread controls (mkl_set_num_threads & co.)."""
    return _read("mkl_threads.h")


def include_dir() -> str:
    """Return the directory of opkit_blas.h, for an op's c_header_dirs (with c_headers ["opkit_blas.h"])."""
    return str(HEADER_DIR)


@functools.lru_cache(maxsize=None)
def verify(text: str) -> str:
    """Check that `text` links a BLAS that gives right numbers with 32-bit ints; return what the probe saw.

    The answer ("fortran=ok cblas=yes|no") is kept in the cache directory per
    compiler and flags, so a process asks the compiler once; a failure is never
    kept and raises BlasError with the linker's words and what to do.
    """
    compiler = find_compiler()
    facts = [*compiler.command, compiler.identity, text, PROBE_VERSION, _read("probe.cpp"), _read(HEADER)]
    try:
        return host.remembered("blas", facts, lambda: _probe(compiler, text)).strip()
    except _ProbeFailed as failed:
        head, lines, fix = _bad_flags_message(text, failed)
        error = BlasError("\n".join([f"{head}: a test program calling dgemm_ with these flags failed:",
                                     *[f"  {line}" for line in lines], fix + "; `opkit doctor` shows the BLAS in use"]),
                          command=failed.command, errors=lines)
        error.short = f"{head} ({'; '.join(lines[:1])}); {fix}"
        raise error from None


class _ProbeFailed(Exception):
    def __init__(self, command, what):
        super().__init__(what)
        self.command, self.what = command, what


def _bad_flags_message(text: str, failed: _ProbeFailed) -> tuple[str, list[str], str]:
    """Return what failed, the first lines the linker or the program wrote, and what to do."""
    lines = [line.strip() for line in failed.what.splitlines() if line.strip()][:4]
    fix = ("fix: set blas__ldflags to flags that link a BLAS with 32-bit integers (e.g. -lopenblas, or "
           "'-L/dir -lname'), or leave it unset to use the BLAS opkit finds (" + INSTALL_HINT + " provides one)")
    return f"config.blas__ldflags={text!r} does not give a working BLAS", lines, fix


def _probe(compiler, text: str) -> str:
    """Link and run templates/blas/probe.cpp with the flags `text`; return its output or raise _ProbeFailed."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="opkit-blas-") as work:
        program = os.path.join(work, "probe")
        command = [*compiler.command, str(HEADER_DIR / "probe.cpp"), f"-I{HEADER_DIR}",
                   *([f"-D{SCIPY_NAMES}"] if uses_scipy_names(text) else []), "-o", program,
                   *split_ldflags(text), *[f"-Wl,-rpath,{d}" for d in _parts(text)["dirs"]]]
        try:
            code, output = run_tool(command, config.compile_timeout)
            if code != 0:
                raise _ProbeFailed(command, output)
            code, output = run_tool([program], 60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise _ProbeFailed(command, f"{type(exc).__name__}: {exc}") from None
        if code != 0 or not output.startswith("fortran=ok"):
            raise _ProbeFailed([program], f"{_run_failure(code)}\n{output}")
    return output


def _run_failure(code: int) -> str:
    """Say why the linked probe failed when it ran, from its exit status."""
    if code == 127:
        return "the linked program could not be loaded (a library it needs was not found at run time)"
    if code < 0:
        return f"the program crashed (signal {-code}), as it does with a BLAS built for 64-bit integers"
    if code == 1:
        return "dgemm_ gave wrong numbers, as it does with a BLAS built for 64-bit integers"
    return f"the program stopped with status {code}"


def detect_ldflags() -> str:
    """Return the link flags of the first working BLAS (config.blas__ldflags's default), or "" if none works.

    Looked for in this order, each one linked and run (`verify`) before it is taken:
    1. MKL, OpenBLAS, FlexiBLAS or BLIS in this Python's own lib directory or where
       numpy's BLAS was built (a conda environment), when that BLAS takes 32-bit ints;
    2. the same libraries where the compiler finds them (the system's);
    3. the scipy-openblas32 wheel (`pip install 'opkit-sdk[blas]'`);
    4. the system's generic -lblas (often the slow reference BLAS, hence after the wheel);
    5. on macOS, the Accelerate framework.
    The answer is kept in the cache directory, named by what it depends on.
    """
    global _detected
    try:
        compiler = find_compiler()
    except CompileError:
        _detected = ""
        return ""  # no compiler: no op compiles, and `opkit doctor` says why
    wheel = _wheel_flags()
    facts = [*compiler.command, compiler.identity, sys.prefix, sys.platform, PROBE_VERSION, wheel,
             os.environ.get("LIBRARY_PATH", ""), *_environment_dirs()]
    try:
        found = host.remembered("blas-detect", facts, lambda: _first_working(compiler, wheel)).strip()
        if not all(os.path.isdir(d) for d in _parts(found)["dirs"]):  # a kept answer whose library went away
            found = _first_working(compiler, wheel)
    except BlasError:
        found = ""
    _detected = found
    return found


def _first_working(compiler, wheel: str) -> str:
    for text in _candidates(compiler, wheel):
        try:
            verify(text)
            return text
        except BlasError:
            continue
    raise BlasError("no BLAS found")


def _candidates(compiler, wheel: str):
    import shlex  # not on a warm path: only detection quotes a directory

    for directory in _environment_dirs():
        for name in TUNED:
            if any(os.path.exists(os.path.join(directory, f"lib{name}{ext}")) for ext in (".so", ".dylib")):
                yield f"-L{shlex.quote(directory)} -l{name}"
    for name in TUNED:
        if _compiler_finds(compiler, name):
            yield f"-l{name}"
    if wheel:
        yield wheel
    if _compiler_finds(compiler, "blas"):
        yield "-lblas"
    if sys.platform == "darwin":
        yield "-framework Accelerate"


def _compiler_finds(compiler, name: str) -> bool:
    """Return True if the compiler's library search path holds lib<name> (what -l<name> would link)."""
    import subprocess

    for ext in (".so", ".dylib"):  # not a static .a: its code is rarely built to go into a shared module
        try:
            code, output = run_tool([*compiler.command, f"-print-file-name=lib{name}{ext}"], 60)
        except (OSError, subprocess.TimeoutExpired):  # a compiler that cannot answer: -l would fail too
            return False
        if code == 0 and os.path.isabs(output.strip()):
            return True
    return False


def _environment_dirs() -> list[str]:
    """Return this Python's lib directory and numpy's BLAS directory (if it takes 32-bit ints), where they exist."""
    dirs = [os.path.join(sys.prefix, "lib")]
    try:
        import numpy

        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        wide = "64BITINT" in str(blas.get("openblas configuration", "")) or "ilp64" in str(blas).lower()
        if blas.get("lib directory") and not wide and blas.get("name") != "scipy-openblas":
            dirs.append(str(blas["lib directory"]))
    except Exception:  # an older numpy, or a build without that record
        pass
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def _wheel_flags() -> str:
    """Return the link flags of the scipy-openblas32 wheel, or "" when it is not installed."""
    import importlib.util

    if importlib.util.find_spec("scipy_openblas32") is None:
        return ""
    import scipy_openblas32  # type: ignore[import-untyped]
    import shlex

    return f"-L{shlex.quote(scipy_openblas32.get_lib_dir())} -l{scipy_openblas32.get_library()}"


def _wheel_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scipy-openblas32")
    except PackageNotFoundError:
        return "(version unknown)"


def blas_name(text: str) -> str:
    """Name the BLAS the flags link: "scipy-openblas32 0.3.x (pip wheel)", "OpenBLAS", "Intel MKL"..."""
    libs = _parts(text)["libs"]
    if uses_scipy_names(text):
        return f"scipy-openblas32 {_wheel_version()} (pip wheel)"
    known = {"openblas": "OpenBLAS", "mkl_rt": "Intel MKL", "flexiblas": "FlexiBLAS", "blis": "BLIS",
             "blas": "the system's libblas"}
    for lib in libs:
        if lib in known or lib.startswith("mkl"):
            return known.get(lib, "Intel MKL")
    return "Apple Accelerate" if "Accelerate" in text else (f"lib{libs[0]}" if libs else text)


def describe() -> tuple[str, bool, str]:
    """Return `opkit doctor`'s BLAS line: (check, ok, which BLAS and its flags, or what to do)."""
    text = config.blas__ldflags
    how = "found by opkit" if text == _detected else "set by blas__ldflags"
    if not text.strip():
        if text == _detected:
            return ("BLAS", True, f"none found: ops that call BLAS cannot compile; to get one: {INSTALL_HINT}")
        return ("BLAS", True, "none: blas__ldflags is set empty, so ops that call BLAS cannot compile; "
                              "unset it to use the BLAS opkit finds")
    try:
        seen = verify(text)
    except BlasError as exc:
        return ("BLAS", False, exc.short or str(exc))
    cblas = "Fortran and CBLAS" if "cblas=yes" in seen else "Fortran only, no CBLAS"
    return ("BLAS", True, f"{blas_name(text)}, {cblas}: {text} ({how}; "
                          "OPKIT_FLAGS=blas__ldflags=... chooses another)")

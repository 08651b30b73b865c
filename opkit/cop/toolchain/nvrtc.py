"""NVRTC through ctypes: CUDA C++ to a cubin and its PTX, with no GPU, no CUDA toolkit and no cuda-bindings.

The library comes from NVIDIA's pip wheels: nvidia-cuda-nvrtc-cu12, which `opkit-sdk[cuda]` installs
(`nvidia/cuda_nvrtc/lib/libnvrtc.so.12`), or CUDA 13's nvidia-cuda-nvrtc, which PyPI's torch pulls
(`nvidia/cu13/lib/libnvrtc.so.13`). Where both are installed, the one of CuPy's CUDA (cupy-cuda12x: 12), whose
driver runs what it compiles, else the newest; `OPKIT_NVRTC` (a library file, or a folder holding one)
overrides the search. One compile for `sm_XX` gives both the cubin and the PTX of
`compute_XX` it was made from (kept as a fallback for a device the cubin does not fit). NVRTC reports errors as
`file(line): error: ...`; a failed compile is a CompileError whose `errors` are `file:line: error: ...` lines, as
a C++ compiler's.

NVRTC opens its builtins library (`libnvrtc-builtins.so.MAJOR.MINOR`) by name at its first compile. CUDA 12's
wheel finds it beside itself through its RUNPATH ($ORIGIN, the folder of the path loaded, not of a link's
target); CUDA 13's has no RUNPATH, so the loader would search LD_LIBRARY_PATH and the system only. Loading the
builtins from beside the library first serves that lookup (the loader answers a name with the object already
loaded under it), for any layout.
"""

from __future__ import annotations

import collections
import functools
import os
import re
import sys
import threading
from typing import NamedTuple

from opkit.cop.compiledir.private_fs import write_private
from opkit.cop.source.lint import misspelt_macro_hints
from opkit.cop.toolchain.host import remembered
from opkit.errors import CompileError

ENVIRONMENT = "OPKIT_NVRTC"
INSTALL_HINT = "pip install opkit-sdk[cuda]"
# (folder under a `nvidia` package folder, library file), newest CUDA first.
WHEEL_LIBRARIES = (("cu13/lib", "libnvrtc.so.13"), ("cuda_nvrtc/lib", "libnvrtc.so.12"))
MAX_ERRORS = 20

# What this process did with NVRTC: "compiled" counts every program NVRTC compiled (tests read it).
nvrtc_events: collections.Counter = collections.Counter()
_events_lock = threading.Lock()

# Patterns are compiled on first use (re's cache): a process that loads cached kernels reads no log.
_DIAGNOSTIC = (r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<severity>catastrophic error|error|warning)(?: #[\w-]+)?: "
               r"(?P<message>.*)$")
_MISSING_HEADER = r'(?:cannot|could not) open source file "([^"]+)"'
_ARCH = r"(?:(sm|compute)_?)?(\d{2,3}[a-z]?)\Z"


class NvrtcNotFoundError(CompileError):
    """NVRTC's library is not installed (or OPKIT_NVRTC names no usable one)."""


class Compiled(NamedTuple):
    """What NVRTC made of one program: the cubin (empty for a `compute_XX` target), its PTX and NVRTC's log."""

    cubin: bytes
    ptx: str
    log: str
    arch: str


def _wheel_folders() -> list[str]:
    """Return every folder of the `nvidia` namespace package (pip's CUDA wheels), without importing a wheel."""
    return list(_namespace_folders(tuple(sys.path)))


@functools.lru_cache(maxsize=8)
def _namespace_folders(path: tuple) -> tuple:
    """_wheel_folders for one sys.path (a search of sys.path costs ~0.5 ms a call)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return ()
    return tuple(spec.submodule_search_locations or ()) if spec is not None else ()


def library_candidates() -> list[str]:
    """Return the paths tried for libnvrtc, in order: OPKIT_NVRTC, then the pip wheels' libraries."""
    override = os.environ.get(ENVIRONMENT)
    if override:
        if os.path.isdir(override):
            return [os.path.join(override, name) for _, name in WHEEL_LIBRARIES]
        return [override]
    major = cupy_cuda_major()
    # CuPy's CUDA first: a cubin of a newer CUDA than the driver CuPy was built for may not load.
    libraries = sorted(WHEEL_LIBRARIES, key=lambda entry: entry[1].rsplit(".", 1)[1] != str(major))
    return [os.path.join(folder, sub, name) for folder in _wheel_folders() for sub, name in libraries]


# CuPy's wheels are named by their CUDA major (cupy-cuda12x); CuPy itself is not imported to learn it.
CUPY_WHEELS = (("cupy-cuda13x", 13), ("cupy-cuda12x", 12), ("cupy-cuda11x", 11))


def cupy_cuda_major() -> int | None:
    """Return the CUDA major of the installed CuPy wheel (None: no CuPy wheel, or CuPy built from source)."""
    return _cupy_major(tuple(sys.path))


@functools.lru_cache(maxsize=8)
def _cupy_major(path: tuple):
    from importlib.metadata import PackageNotFoundError, distribution

    for name, major in CUPY_WHEELS:
        try:
            distribution(name)
        except PackageNotFoundError:
            continue
        return major
    return None


def find_library() -> str:
    """Return the path of the NVRTC library this process uses; NvrtcNotFoundError naming the fix if none."""
    tried = library_candidates()
    for path in tried:
        if os.path.isfile(path):
            return path
    where = "\n".join(f"  {path}" for path in tried) or "  (no `nvidia` package folder on sys.path)"
    if os.environ.get(ENVIRONMENT):
        fix = f"fix: set {ENVIRONMENT} to libnvrtc.so.12 (or .so.13) or the folder holding it, or unset it"
    else:
        fix = (f"fix: {INSTALL_HINT} (NVRTC from pip's nvidia-cuda-nvrtc-cu12 wheel; no CUDA toolkit needed), "
               f"or set {ENVIRONMENT} to a libnvrtc.so.12")
    raise NvrtcNotFoundError(f"NVRTC, the CUDA runtime compiler, is not installed: CUDA kernels cannot be "
                             f"compiled\nlooked for:\n{where}\n{fix}")


_loaded: dict = {}  # path -> ctypes.CDLL
_builtins: dict = {}  # path -> the builtins library loaded from beside it (kept loaded), or None
_load_lock = threading.Lock()


def _library():
    """Return the loaded NVRTC library (loaded once per path, typed, its builtins loaded from beside it)."""
    path = find_library()
    with _load_lock:
        lib = _loaded.get(path)
        if lib is None:
            lib = _loaded[path] = _load(path)
    return lib


def _load(path: str):
    """Load the NVRTC library at `path` and the builtins library beside it (see the module's doc)."""
    import ctypes

    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        raise NvrtcNotFoundError(f"NVRTC at {path} cannot be loaded: {exc}\nfix: {INSTALL_HINT} "
                                 f"again, or set {ENVIRONMENT} to a working libnvrtc.so.12") from None
    _declare(lib)
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    _builtins[path] = _load_builtins(path, builtins_name((major.value, minor.value)))
    return lib


def builtins_name(version: tuple[int, int]) -> str:
    """Return the file NVRTC `version` opens at its first compile: libnvrtc-builtins.so.13.0 for NVRTC 13.0."""
    return "libnvrtc-builtins.so.%d.%d" % version


def _load_builtins(path: str, name: str):
    """Load `name` from the folder of `path` (or of the file it links to); None where neither holds it.

    RTLD_LOCAL: none of its symbols becomes global, so a CUDA 12 and a CUDA 13 NVRTC can serve one process.
    """
    import ctypes

    for folder in dict.fromkeys((os.path.dirname(path), os.path.dirname(os.path.realpath(path)))):
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            try:
                return ctypes.CDLL(candidate)
            except OSError:
                continue  # NVRTC's own lookup may still find one; a failed compile says where it looked
    return None


def _declare(lib) -> None:
    """Give ctypes the signatures of the NVRTC functions opkit calls."""
    import ctypes

    p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    signatures = {
        "nvrtcVersion": [ctypes.POINTER(i), ctypes.POINTER(i)],
        "nvrtcGetNumSupportedArchs": [ctypes.POINTER(i)],
        "nvrtcGetSupportedArchs": [ctypes.POINTER(i)],
        "nvrtcCreateProgram": [ctypes.POINTER(p), ctypes.c_char_p, ctypes.c_char_p, i, p, p],
        "nvrtcCompileProgram": [p, i, ctypes.POINTER(ctypes.c_char_p)],
        "nvrtcGetProgramLogSize": [p, ctypes.POINTER(s)],
        "nvrtcGetProgramLog": [p, ctypes.c_char_p],
        "nvrtcGetCUBINSize": [p, ctypes.POINTER(s)],
        "nvrtcGetCUBIN": [p, ctypes.c_char_p],
        "nvrtcGetPTXSize": [p, ctypes.POINTER(s)],
        "nvrtcGetPTX": [p, ctypes.c_char_p],
        "nvrtcDestroyProgram": [ctypes.POINTER(p)],
    }
    for name, argtypes in signatures.items():
        function = getattr(lib, name)
        function.argtypes, function.restype = argtypes, i
    lib.nvrtcGetErrorString.argtypes, lib.nvrtcGetErrorString.restype = [i], ctypes.c_char_p


def _check(lib, result: int, call: str) -> None:
    """Raise CompileError naming NVRTC's error when a call other than the compile fails."""
    if result != 0:
        raise CompileError(f"NVRTC's {call} failed: {_error_name(lib, result)}", returncode=result)


def _error_name(lib, result: int) -> str:
    name = lib.nvrtcGetErrorString(result)
    return name.decode() if name else f"NVRTC error {result}"


@functools.lru_cache(maxsize=None)
def _version_of(path: str) -> tuple[int, int]:
    import ctypes

    lib = _library()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def nvrtc_version() -> tuple[int, int]:
    """Return NVRTC's (major, minor) version; NvrtcNotFoundError (naming `pip install opkit-sdk[cuda]`) if absent.

    It is part of every kernel module's identity, so a process that only loads cached kernels asks it too:
    the answer is kept in the compile cache's host folder, keyed by the library's path and stat, and such a
    process never loads the 100 MB library (about 10-20 ms).
    """
    path = find_library()
    st = os.stat(path)
    facts = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _versions.get(facts)
    if known is None:
        text = remembered("nvrtc-version", [str(fact) for fact in facts], lambda: "%d.%d" % _version_of(path))
        try:
            major, minor = map(int, text.split("."))
        except ValueError:  # not what this module keeps there: ask the library
            major, minor = _version_of(path)
        known = _versions[facts] = (major, minor)
    return known


_versions: dict[tuple, tuple[int, int]] = {}


@functools.lru_cache(maxsize=None)
def _archs_of(path: str) -> tuple[int, ...]:
    import ctypes

    lib = _library()
    count = ctypes.c_int()
    _check(lib, lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "nvrtcGetNumSupportedArchs")
    archs = (ctypes.c_int * count.value)()
    _check(lib, lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
    return tuple(archs)


def supported_archs() -> tuple[int, ...]:
    """Return the compute capabilities this NVRTC compiles for (e.g. 80 for sm_80)."""
    return _archs_of(find_library())


def normalize_arch(arch) -> str:
    """Return `arch` as NVRTC's `sm_XX` (or `compute_XX`, PTX only): accepts 'sm_90', 'sm90', '90', 90, (9, 0)."""
    if isinstance(arch, tuple) and len(arch) == 2:
        arch = f"{arch[0]}{arch[1]}"
    match = re.match(_ARCH, str(arch).strip().lower())
    if not match:
        raise ValueError(f"unknown CUDA architecture {arch!r}; expected e.g. 'sm_80', 'sm_90' or 'compute_90'")
    return f"{match.group(1) or 'sm'}_{match.group(2)}"


def _check_arch(arch: str) -> None:
    """Raise CompileError if this NVRTC cannot compile for `arch`, listing those it can."""
    number = int(re.sub(r"\D", "", arch))
    known = supported_archs()
    if number not in known:
        names = ", ".join(f"sm_{n}" for n in known)
        raise CompileError(f"NVRTC {'.'.join(map(str, nvrtc_version()))} cannot compile for {arch}; it knows: "
                           f"{names}")


def compile_cuda(text: str, filename: str = "kernels.cu", arch="sm_90", options=(), include_dirs=(),
                 source_path=None) -> Compiled:
    """Compile CUDA C++ `text` with NVRTC for `arch`; return its cubin, PTX and log.

    `filename` names the program in NVRTC's messages where no `#line` says otherwise;
    `include_dirs` become `-I` options; `options` are NVRTC's own (`-use_fast_math`, ...).
    A failed compile raises CompileError whose `errors` are `file:line: error: message`
    lines (the first MAX_ERRORS), with `output` NVRTC's log; with `source_path` (where the
    caller keeps the text), the message names it and the log is written beside it (`.log`).
    """
    import ctypes

    arch = normalize_arch(arch)
    lib = _library()
    _check_arch(arch)
    command = [f"--gpu-architecture={arch}", *[f"-I{d}" for d in include_dirs], *map(str, options)]
    program = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(program), text.encode("utf-8", "surrogateescape"),
                                       filename.encode("utf-8", "surrogateescape"), 0, None, None),
           "nvrtcCreateProgram")
    try:
        encoded = [option.encode("utf-8", "surrogateescape") for option in command]
        result = lib.nvrtcCompileProgram(program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
        with _events_lock:
            nvrtc_events["compiled"] += 1
        log = _read(lib, program, lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog)
        log = log.rstrip(b"\0").decode("utf-8", "replace")
        if result != 0:
            raise _compile_error(lib, result, log, arch, command, source_path)
        cubin = b"" if arch.startswith("compute_") else _read(lib, program, lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN)
        ptx = _read(lib, program, lib.nvrtcGetPTXSize, lib.nvrtcGetPTX).rstrip(b"\0").decode("utf-8", "replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))
    return Compiled(cubin, ptx, log, arch)


def _read(lib, program, size_function, read_function) -> bytes:
    """Return one of a program's outputs (log, cubin, PTX) through its size and read functions."""
    import ctypes

    size = ctypes.c_size_t()
    _check(lib, size_function(program, ctypes.byref(size)), size_function.__name__)
    buffer = ctypes.create_string_buffer(size.value)
    if size.value:
        _check(lib, read_function(program, buffer), read_function.__name__)
    return buffer.raw[: size.value]


# The CUDA ELF OS/ABIs (e_ident[7]) and where each keeps the SM number in e_flags (LLVM's ELF.h): V1 (CUDA 12
# below sm_100) in its low byte, V2 (CUDA 12's sm_100 and up, all of CUDA 13's) in its second byte.
_CUDA_ELF_SM_SHIFT = {0x33: 0, 0x41: 8}


def cubin_arch(cubin: bytes) -> str:
    """Return the architecture a cubin was compiled for ('sm_90'), from its ELF header; ValueError if no cubin."""
    import struct

    if len(cubin) < 52 or cubin[:4] != b"\x7fELF" or cubin[4] != 2 or cubin[7] not in _CUDA_ELF_SM_SHIFT:
        raise ValueError("not a CUDA cubin (a 64-bit ELF file with the CUDA OS/ABI)")
    return f"sm_{struct.unpack_from('<I', cubin, 48)[0] >> _CUDA_ELF_SM_SHIFT[cubin[7]] & 0xFF}"


def log_diagnostics(log: str) -> list[tuple[str, int, str, str]]:
    """Return NVRTC's diagnostics as (file, line, 'error' or 'warning', message), in the log's order."""
    return [(m["file"], int(m["line"]), "warning" if m["severity"] == "warning" else "error", m["message"].strip())
            for m in re.finditer(_DIAGNOSTIC, log, re.M)]


def log_errors(log: str, limit: int = MAX_ERRORS) -> list[str]:
    """Return NVRTC's diagnostics as `file:line: error: message` lines (errors first), at most `limit`."""
    found = [m for m in re.finditer(_DIAGNOSTIC, log, re.M)]
    lines = [f"{m['file']}:{m['line']}: {m['severity']}: {m['message'].strip()}" for m in found]
    errors = [line for line, m in zip(lines, found) if m["severity"] != "warning"]
    if not found:
        errors = [line for line in log.splitlines() if line.strip()]
    return errors[:limit]


def _builtins_hint(log: str) -> list[str]:
    """Return the fix when NVRTC could not open its builtins library (not beside it, nor on the loader's path)."""
    match = re.search(r"failed to open (libnvrtc-builtins\S*?)\.?$", log, re.M)
    if not match:
        return []
    path = find_library()
    return [f"hint: NVRTC's builtins library {match[1]} is not beside {path} (nor on LD_LIBRARY_PATH): "
            f"reinstall the wheel that holds {os.path.basename(path)}, or set {ENVIRONMENT} to a folder "
            f"holding both {os.path.basename(path)} and {match[1]}"]


def _hints(log: str) -> list[str]:
    """Return hints for what NVRTC could not find, and for misspelt opkit macros in the files it points at."""
    hints = []
    for header in dict.fromkeys(re.findall(_MISSING_HEADER, log)):
        hints.append(f"hint: header {header!r} not found: NVRTC has no C library and no CUDA toolkit headers; "
                     "put the header beside the op's C file (its folder is searched) or pass -I<folder> in options")
    return hints + misspelt_macro_hints(m["file"] for m in re.finditer(_DIAGNOSTIC, log, re.M))


def _compile_error(lib, result, log, arch, command, source_path) -> CompileError:
    """Turn a failed compile into a CompileError: what failed, the first errors, hints, and where the rest is."""
    version = ".".join(map(str, nvrtc_version()))
    errors = log_errors(log)
    lines = [f"compiling CUDA kernels with NVRTC {version} for {arch} failed ({_error_name(lib, result)})",
             *errors, *_builtins_hint(log), *_hints(log)]
    if source_path is not None:
        log_path = os.path.splitext(os.fspath(source_path))[0] + ".log"
        lines.append(f"full source kept at {source_path}")
        try:
            write_private(log_path, f"$ nvrtc {' '.join(command)}\n{log}".encode("utf-8", "surrogateescape"),
                          sync=False)
            lines.append(f"full NVRTC log in {log_path}")
        except OSError as exc:
            lines.append(f"{exc}\nNVRTC log:\n{log[-4000:]}")
    error = CompileError("\n".join(lines), command=["nvrtc", *command], returncode=result,
                         source_path=source_path, errors=errors)
    error.output = log
    return error

"""Find the C++ compiler and the headers a compiled module needs; describe them for `opkit doctor`."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from typing import NamedTuple

from opkit.config import config
from opkit.cop.toolchain.host import remembered
from opkit.errors import CompileError

CANDIDATES = ("g++", "clang++", "c++")

_found: dict[tuple[str, str], Compiler] = {}


class Compiler(NamedTuple):  # not a frozen dataclass: creating one costs each process a millisecond
    """A C++ compiler: the command that runs it and what it is (path and version line)."""

    command: tuple[str, ...]
    identity: str


def find_compiler() -> Compiler:
    """Return the C++ compiler to use: `config.cxx`, else g++, clang++ or c++ on PATH."""
    memo_key = (config.cxx, os.environ.get("PATH", ""))
    compiler = _found.get(memo_key)
    if compiler is None:
        command = _locate()
        compiler = Compiler(command, _identify(command))
        _found[memo_key] = compiler
    return compiler


def _locate() -> tuple[str, ...]:
    """Return the compiler command with its program resolved to a path, or raise CompileError."""
    if config.cxx:
        import shlex

        command = shlex.split(config.cxx)
        path = _which(command[0]) if command else None
        if path is None:
            raise CompileError(_missing_message(f"the C++ compiler {config.cxx!r} set by config.cxx was not found"),
                               command=command)
        return (path, *command[1:])
    for name in CANDIDATES:
        path = _which(name)
        if path is not None:
            return (path,)
    raise CompileError(_missing_message(f"no C++ compiler found: tried {', '.join(CANDIDATES)} on PATH"))


def _missing_message(what: str) -> str:
    return "\n".join([
        what,
        "fix: install one (Debian/Ubuntu: apt-get install g++; Fedora: dnf install gcc-c++;"
        " macOS: xcode-select --install)",
        "  or name one: OPKIT_FLAGS=cxx=/path/to/c++ (or opkit.config.cxx = ...)",
        "`opkit doctor` checks the whole toolchain and says how to fix it",
        "to run ops in (slow) Python instead, opt in with OPKIT_FLAGS=python_fallback=true",
    ])


def _which(name: str) -> str | None:
    """Return what shutil.which(name) returns on POSIX (importing shutil costs a warm process bz2 and lzma)."""
    def runnable(path):
        return os.path.exists(path) and os.access(path, os.F_OK | os.X_OK) and not os.path.isdir(path)

    if os.path.dirname(name):
        return name if runnable(name) else None
    path = os.environ.get("PATH")
    if path is None:
        try:
            path = os.confstr("CS_PATH")
        except (AttributeError, ValueError):
            path = os.defpath
    if not path:
        return None
    seen = set()
    for directory in os.fsdecode(path).split(os.pathsep):
        normal = os.path.normcase(directory)
        if normal not in seen:
            seen.add(normal)
            candidate = os.path.join(directory, name)
            if runnable(candidate):
                return candidate
    return None


def _identify(command: tuple[str, ...]) -> str:
    """Return the compiler's resolved path and the first line of its `--version`.

    Spawning `--version` costs a fresh process 2-10 ms, so the answer is kept in the
    cache directory (opkit.cop.toolchain.host.remembered), named by the command and the files
    of the programs it names: the compiler's, and those of its other words that name
    a program on PATH (`ccache g++`: g++ too): path, device, inode, size, modification
    and change times. A compiler installed again, or rewritten in place, is asked again.
    """
    try:
        facts = [*command, *_file_facts(command[0])]
    except OSError:
        return _ask_identity(command)  # says why it cannot be run
    for word in command[1:]:
        program = None if word.startswith("-") else _which(word)
        if program is not None:
            try:
                facts += _file_facts(program)
            except OSError:
                pass
    return remembered("compiler-identity", facts, lambda: _ask_identity(command))


def _file_facts(path: str) -> list[str]:
    """Return what tells a program's file from another: its resolved path, device, inode, size and times."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return [real, *(str(n) for n in (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))]


def _ask_identity(command: tuple[str, ...]) -> str:
    import subprocess

    try:
        run = subprocess.run([*command, "--version"], capture_output=True, text=True, errors="replace",
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise CompileError(_missing_message(f"the C++ compiler {command[0]} cannot be run: {exc}"),
                           command=[*command, "--version"]) from exc
    lines = (run.stdout or run.stderr).strip().splitlines()
    return f"{os.path.realpath(command[0])} {lines[0] if lines else ''}".strip()


def run_tool(command, timeout: float) -> tuple[int, str]:
    """Run a compiler command; return its exit status and its output (stdout and stderr, as text).

    The command runs in a session of its own, so that running past `timeout`
    seconds, or an interrupt, stops the driver and everything it started (cc1plus,
    as, ld) before subprocess.TimeoutExpired (or the interrupt) is raised: a
    `#include` of a FIFO, or a hung compiler, must not hold a module's lock for ever.
    """
    import signal
    import subprocess

    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.kill()
        process.wait()
        process.stdout.close()  # a descendant that left the session may still hold the pipe: never read it
        raise
    return process.returncode, output


def python_include_dirs() -> list[str]:
    """Return the include directories of Python's and numpy's C headers (sysconfig's, then numpy.get_include()).

    Every module's identity reads them (opkit.cop.toolchain.system_headers), so sysconfig's
    answer (0.3 ms) is asked once per function that gives it; numpy.get_include() is
    asked every time.
    """
    import numpy

    return list(dict.fromkeys([*_python_dirs(sysconfig.get_paths), numpy.get_include()]))


@functools.lru_cache(maxsize=4)
def _python_dirs(get_paths) -> tuple[str, str]:
    paths = get_paths()
    return paths["include"], paths["platinclude"]


@functools.lru_cache(maxsize=None)
def numpy_c_api_version() -> str:
    """Return numpy's C-API (ABI) version, or numpy's version where it cannot be read."""
    import numpy

    try:
        from numpy._core._multiarray_umath import _get_ndarray_c_version
    except ImportError:
        try:
            from numpy.core._multiarray_umath import _get_ndarray_c_version  # numpy 1
        except ImportError:
            return numpy.__version__
    return hex(_get_ndarray_c_version())


def extension_suffix() -> str:
    """Return this Python's file name suffix for extension modules (e.g. .cpython-311-x86_64-linux-gnu.so)."""
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def python_abi() -> str:
    """Return what a compiled module's Python ABI depends on: extension suffix and ABI flags."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
    return f"{sys.implementation.cache_tag} {suffix} {getattr(sys, 'abiflags', '')}"


def describe_toolchain() -> list[tuple[str, bool, str]]:
    """Check the toolchain for `opkit doctor`: a list of (check, ok, detail or fix)."""
    checks = []
    try:
        checks.append(("C++ compiler", True, find_compiler().identity))
    except CompileError as exc:
        checks.append(("C++ compiler", False, str(exc)))
    checks.append(_header_check("Python headers", sysconfig.get_paths()["include"], "Python.h",
                                "install the Python development headers (Debian/Ubuntu: apt-get install python3-dev)"))
    try:
        import numpy

        checks.append(_header_check("numpy headers", numpy.get_include(), os.path.join("numpy", "arrayobject.h"),
                                    "reinstall numpy (pip install --force-reinstall numpy)"))
    except ImportError as exc:
        checks.append(("numpy headers", False, f"numpy cannot be imported ({exc}); pip install numpy"))
    return checks


def _header_check(check: str, include: str, header: str, fix: str) -> tuple[str, bool, str]:
    ok = os.path.exists(os.path.join(include, header))
    return (check, ok, include if ok else f"{header} not found in {include}; {fix}")

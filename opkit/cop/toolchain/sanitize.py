"""AddressSanitizer builds (OPKIT_FLAGS=sanitize=address): find the runtime and say how to preload it.

A module built with -fsanitize=address needs the ASan runtime to be the first
library of the process. Loaded by a plain `python` it cannot be: the runtime
would come in with the module and abort the process. So before such a module
is built or loaded, `require_runtime()` checks the runtime is there and
otherwise raises an error giving the exact command line to run instead.
"""

from __future__ import annotations

import functools
import os
import platform
import sys

from opkit.config import config
from opkit.cop.toolchain.compiler import find_compiler

_RUNTIME_MARKERS = ("libasan", "libclang_rt.asan")


class SanitizerRuntimeError(RuntimeError):
    """Sanitized modules cannot be loaded here: the sanitizer runtime is not preloaded."""

    def __init__(self, message, runtime=None, command=None):
        self.runtime = runtime
        self.command = command
        super().__init__(message)


def _runtime_names():
    """Return the file names of ASan runtimes: gcc's, then clang's two layouts."""
    return ("libasan.so", f"libclang_rt.asan-{platform.machine()}.so", "libclang_rt.asan.so")


@functools.lru_cache(maxsize=None)
def _print_file_name(command, name):
    """Return the compiler's full path for library `name`, or None (it echoes a bare name back)."""
    import subprocess

    try:
        run = subprocess.run([*command, f"-print-file-name={name}"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    path = run.stdout.strip()
    return path if run.returncode == 0 and os.path.isabs(path) and os.path.exists(path) else None


def asan_runtime(compiler=None):
    """Return the resolved path of the configured compiler's ASan runtime library, or None."""
    command = tuple((compiler or find_compiler()).command)
    for name in _runtime_names():
        path = _print_file_name(command, name)
        if path is not None:
            return os.path.realpath(path)
    return None


def runtime_loaded():
    """Return True if an ASan runtime is mapped into this process (or, without /proc, preloaded)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            return any(marker in maps.read() for marker in _RUNTIME_MARKERS)
    except OSError:
        preload = os.environ.get("LD_PRELOAD", "") + os.environ.get("DYLD_INSERT_LIBRARIES", "")
        return any(marker in preload for marker in _RUNTIME_MARKERS)


def preload_hint(runtime=None, argv=None):
    """Return the command line that reruns this process (or `argv`) with the ASan runtime preloaded."""
    import shlex

    runtime = runtime or asan_runtime() or "libasan.so"
    preload = ":".join(filter(None, [runtime, os.environ.get("LD_PRELOAD", "")]))
    options = os.environ.get("ASAN_OPTIONS", "")
    if "detect_leaks=" not in options:
        # The interpreter does not free everything at exit; leak reports would bury the real errors.
        options = ":".join(filter(None, [options, "detect_leaks=0"]))
    argv = list(sys.orig_argv if argv is None else argv) or [sys.executable]
    return f"LD_PRELOAD={shlex.quote(preload)} ASAN_OPTIONS={shlex.quote(options)} {shlex.join(argv)}"


def require_runtime():
    """Raise SanitizerRuntimeError if config.sanitize is set and its runtime is not in this process."""
    if config.sanitize != "address" or runtime_loaded():
        return
    runtime = asan_runtime()
    if runtime is None:
        raise SanitizerRuntimeError("\n".join([
            "OPKIT_FLAGS=sanitize=address, but the C++ compiler has no AddressSanitizer runtime",
            "(`<compiler> -print-file-name=libasan.so` found no library)",
            "fix: install it (Debian/Ubuntu: apt-get install libasan8; Fedora: dnf install libasan)",
            "  or build without the sanitizer: remove sanitize=address from OPKIT_FLAGS",
        ]))
    command = preload_hint(runtime)
    raise SanitizerRuntimeError("\n".join([
        "OPKIT_FLAGS=sanitize=address, but this process did not preload the AddressSanitizer runtime",
        "a sanitized module loaded without it aborts the process: ASan must be the first library loaded",
        "run instead:",
        f"  {command}",
        "or build without the sanitizer: remove sanitize=address from OPKIT_FLAGS",
    ]), runtime=runtime, command=command)


"""A precompiled header of Python.h and numpy's headers, built once per toolchain and flags.

Parsing those headers is about half of a small module's compile time. The
header lives in ``<compiledir>/pch/<hash>/``; g++ uses the ``.gch`` beside it
when the flags match and silently parses the header otherwise, so a stale or
missing PCH costs time, never correctness.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import warnings

from opkit.cop.cache import default_cache

PCH_HEADER = """// opkit precompiled header: what every generated module includes first.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>
#include <new>
#include <cstddef>
#include <cmath>
"""
_ready = {}


def _supported(compiler):
    return "g++" in compiler.identity or "GCC" in compiler.identity or "gcc" in compiler.identity


def pch_args(compiler, compile_args, include_dirs):
    """Return the compiler arguments that use the precompiled header (empty if unavailable)."""
    if not _supported(compiler) or os.environ.get("OPKIT_NO_PCH"):
        return []
    digest = hashlib.sha256("\n".join([PCH_HEADER, compiler.identity, *compile_args, *include_dirs])
                            .encode()).hexdigest()[:24]
    directory = default_cache().root / "pch" / digest
    header = directory / "opkit_pch.hpp"
    # Re-check the files each time: the cache may have been cleared or compiledir changed.
    usable = _ready.get(header)
    if usable is None or (usable and not header.exists()):
        usable = _ready[header] = _build(compiler, compile_args, include_dirs, directory, header)
    return ["-include", str(header), "-Winvalid-pch"] if usable else []


def _build(compiler, compile_args, include_dirs, directory, header):
    """Build header.gch under a lock unless it exists; return True if it can be used."""
    gch = header.with_name(header.name + ".gch")
    if gch.exists() and header.exists():
        return True
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(directory / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if gch.exists() and header.exists():
            return True
        header.write_text(PCH_HEADER)
        tmp = gch.with_name(f"{gch.name}.{os.getpid()}")
        command = [*compiler.command, *compile_args, *[f"-I{d}" for d in include_dirs],
                   "-x", "c++-header", str(header), "-o", str(tmp)]
        run = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
        if run.returncode != 0:
            warnings.warn(f"opkit could not build its precompiled header (compiles will be slower):\n"
                          f"{run.stdout}{run.stderr}"[:2000], RuntimeWarning, stacklevel=4)
            tmp.unlink(missing_ok=True)
            return False
        os.replace(tmp, gch)
    return True

"""A precompiled header of Python.h and numpy's headers, built once per toolchain, flags and headers' bytes.

Parsing those headers is about half of a small module's compile time. The
header lives in ``<compiledir>/pch/<digest>/``; g++ uses the ``.gch`` beside it
when the flags match and silently parses the header otherwise, so a missing PCH
costs time, never correctness. g++ does not check that the headers a ``.gch`` was
built from are still those on disk, so `<digest>` is the key of the header's request
(`pch_key`): the compiler, the flags, Python's ABI, numpy's C-API version and the bytes
of every header in Python's and numpy's folders; a numpy upgraded in place gets a
header of its own. A .gch whose bytes are not those built (its sha256 is kept sealed
beside it, checked once a process) is built again, never used.

g++ loads whatever ``.gch`` it finds there, so the directories are made private
(0700, whatever the umask) and a PCH is used only from a cache root and
directories that are private to this user. A build writes temporary files
(``.tmp-*``) and renames them into place under the directory's lock; one that
was interrupted leaves nothing `opkit cache prune` does not remove. A cache that
cannot be written (read-only) simply builds without a PCH.
"""

from __future__ import annotations

import fcntl
import os
import warnings

from opkit.config import config
from opkit.cop.compiledir import layout
from opkit.cop.compiledir.layout import (PCH_DIGEST_FILE, PCH_DIGEST_LENGTH, PCH_DIR, PCH_GCH, PCH_HEADER_FILE,
                                         PCH_LOCK)
from opkit.cop.toolchain.compiler import run_tool
from opkit.cop.toolchain.identity import pch_request, request_key
from opkit.cop.compiledir.pch_files import PCH_HEADER, intact
from opkit.cop.compiledir.private_fs import make_private_dirs, private_problem, write_private, write_sealed
from opkit.core.digest import sha256

HEADER, GCH, LOCK = PCH_HEADER_FILE, PCH_GCH, PCH_LOCK
DIGEST = PCH_DIGEST_FILE  # the .gch's sha256, sealed: a damaged .gch is built again, never used
PCH_FORMAT = "opkit-pch-2"
_ready = {}


def _supported(compiler):
    return "g++" in compiler.identity or "GCC" in compiler.identity or "gcc" in compiler.identity


def pch_args(compiler, compile_args, include_dirs):
    """Return the compiler arguments that use the precompiled header (empty if unavailable)."""
    if not _supported(compiler) or os.environ.get("OPKIT_NO_PCH"):
        return []
    digest = pch_key(compiler, compile_args, include_dirs)[:PCH_DIGEST_LENGTH]
    root = layout.root()
    directory = root / PCH_DIR / digest
    header = directory / HEADER
    # Re-check the files each time: the cache may have been cleared or compiledir changed.
    usable = _ready.get(header)
    if usable is None or (usable and not (directory / GCH).exists()):
        try:
            usable = _build(compiler, compile_args, include_dirs, root, directory)
        except OSError as exc:  # a read-only cache, a file where a directory belongs...
            usable = False
            if os.access(root, os.W_OK):  # a read-only cache already warned that it builds aside
                warnings.warn(f"opkit cannot use a precompiled header in {directory} (compiles will be slower):"
                              f" {exc}", RuntimeWarning, stacklevel=3)
        _ready[header] = usable
    return ["-include", str(header), "-Winvalid-pch"] if usable else []


def pch_key(compiler, compile_args, include_dirs) -> str:
    """Return the key of the precompiled header `compiler` builds with `compile_args` and -I `include_dirs`
    (Python's and numpy's folders): its request's (opkit.cop.toolchain.identity.pch_request), which holds the
    compiler, the flags, the CPU features of -march=native, Python's ABI, numpy's C-API version and the bytes
    of every header in those folders. A numpy upgraded in place gets a header of its own: g++ never checks
    that the headers a .gch was built from are unchanged."""
    return request_key(pch_request(PCH_HEADER, compiler, compile_args, include_dirs), PCH_FORMAT)


def pch_removed(args) -> bool:
    """Return True if `args` (from pch_args) name a precompiled header that is no longer there."""
    if "-include" not in args:
        return False
    header = args[args.index("-include") + 1]
    return not (os.path.exists(header) and os.path.exists(header + ".gch"))


def _private_chain(root, directory) -> str | None:
    """Return why `directory` (under root) is not private, or None if root and every level below are."""
    path = root
    for part in (None, *directory.relative_to(root).parts):
        path = path if part is None else path / part
        problem = private_problem(os.lstat(path))
        if problem is not None:
            return f"{path}: {problem}"
    return None


def _build(compiler, compile_args, include_dirs, root, directory):
    """Build the .gch under the directory's lock unless it exists; return True if it can be used."""
    header, gch = directory / HEADER, directory / GCH
    if not (header.exists() and gch.exists()):
        make_private_dirs(directory)
    problem = _private_chain(root, directory)
    if problem is not None:
        warnings.warn(f"opkit does not use the precompiled header in {directory}, which others could"
                      f" change ({problem}); fix: chmod 700 it, or `opkit cache clear`", RuntimeWarning,
                      stacklevel=4)
        return False
    if intact(directory):
        return True
    fd = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if intact(directory):
            return True
        nonce = f"{os.getpid()}-{os.urandom(4).hex()}"
        tmp_header, tmp_gch = directory / f".tmp-{nonce}.hpp", directory / f".tmp-{nonce}.gch"
        try:
            write_private(tmp_header, PCH_HEADER.encode())
            os.replace(tmp_header, header)
            # -c: compile only, also where config.cflags holds a linker flag (-Wl,...: the driver would link)
            command = [*compiler.command, *compile_args, *[f"-I{d}" for d in include_dirs],
                       "-c", "-x", "c++-header", str(header), "-o", str(tmp_gch)]
            import subprocess

            try:
                returncode, output = run_tool(command, config.compile_timeout)
            except subprocess.TimeoutExpired:
                returncode, output = None, f"stopped after {config.compile_timeout:g} s (config.compile_timeout)"
            if returncode != 0:
                warnings.warn(f"opkit could not build its precompiled header (compiles will be slower):\n"
                              f"{output}"[:2000], RuntimeWarning, stacklevel=4)
                return False
            os.chmod(tmp_gch, 0o600)
            with open(tmp_gch, "rb") as handle:
                write_sealed(directory / DIGEST, sha256(handle.read()).hexdigest().encode())
            os.replace(tmp_gch, gch)
        finally:
            for leftover in (tmp_header, tmp_gch):
                try:
                    os.unlink(leftover)
                except FileNotFoundError:
                    pass
    finally:
        os.close(fd)
    return True

"""The bytes of Python's and numpy's C headers, as one digest: part of every module's toolchain.

Every module is compiled with `-I` Python's and numpy's include folders
(opkit.cop.build.compiler.python_include_dirs: sysconfig's, then numpy.get_include()).
A numpy upgraded in place keeps its folder, and may keep its C-API version, while
its headers change; so the bytes of every file under those folders are part of the
identity of a module and of the precompiled header (opkit.cop.build.identity).

Hashing them (about 1.3 MB) is done once per machine, not once per process: the
digest is kept in the compile cache (`host/system-headers-<digest of the folders>`)
with the stat of every file and folder under them (path, device, inode, size,
modification and change times). A process stats them (a few hundred calls, well
under a millisecond) and uses the kept digest while every stat is the same; an edit
in place changes a file's change time, a file added or removed its folder's. In a
process the answer is looked at again at most every RECHECK_SECONDS.
"""

from __future__ import annotations

import json
import os
import time

from opkit.core.digest import sha256

FORMAT = "opkit-system-headers-1"
RECHECK_SECONDS = 2.0
_known: dict = {}  # folders -> (digest, the stats it was made from, when last looked at)


def system_headers_digest(dirs=None) -> str:
    """Return the digest of the names and bytes of every file under `dirs` (default: python_include_dirs())."""
    now = time.monotonic()
    default = dirs is None
    if default:
        last = _known.get(None)
        if last is not None and now - last[2] < RECHECK_SECONDS:
            return last[0]
        from opkit.cop.build.compiler import python_include_dirs

        dirs = python_include_dirs()
    folders = tuple(os.path.realpath(d) for d in dirs)
    known = _known.get(folders)
    if known is None or now - known[2] >= RECHECK_SECONDS:
        if known is None or _stats(known[1]) != known[1]:
            known = _kept(folders)
        known = (known[0], known[1], now)
        _known[folders] = known
    if default:
        _known[None] = known
    return known[0]


def _stats(listed) -> list | None:
    """Return the stats of the paths `listed` holds ([[path, ...], ...]) as they are now, or None if one is gone."""
    try:
        return [[path, *_facts(os.stat(path))] for path, *_ in listed]
    except OSError:
        return None


def _facts(st) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _kept(folders) -> tuple[str, list, float]:
    """Return (digest, stats) of `folders`: kept in the cache directory while their stats hold, else made (and kept)."""
    from opkit.cop.compiledir import layout
    from opkit.cop.compiledir.private_fs import read_sealed, write_sealed

    path = layout.host_dir() / f"system-headers-{sha256(repr(folders).encode('utf-8', 'surrogateescape')).hexdigest()[:32]}"
    data = read_sealed(path)
    if data is not None:
        try:
            kept = json.loads(data.decode("utf-8", "surrogateescape"))
            if kept["format"] == FORMAT and _stats(kept["stats"]) == kept["stats"]:
                return kept["digest"], kept["stats"], 0.0
        except (ValueError, KeyError, TypeError):
            pass
    digest, stats = _hashed(folders)
    try:
        write_sealed(path, json.dumps({"format": FORMAT, "digest": digest, "stats": stats})
                     .encode("utf-8", "surrogateescape"))
    except OSError:  # a read-only or full cache: hashed again by the next process
        pass
    return digest, stats, 0.0


def _hashed(folders) -> tuple[str, list]:
    """Return the digest of every file's name (relative to its folder) and bytes, and the stats of all it read.

    A file is stated before it is read: one changed while being read has a stat that no longer holds, so
    the next process reads it again.
    """
    digest = sha256(FORMAT.encode())
    stats = []
    for number, folder in enumerate(folders):
        for here, subfolders, files in os.walk(folder):
            subfolders.sort()
            try:
                stats.append([here, *_facts(os.stat(here))])
            except OSError:
                continue
            for name in sorted(files):
                path = os.path.join(here, name)
                try:
                    st = os.stat(path)
                    with open(path, "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                stats.append([path, *_facts(st)])
                relative = os.path.relpath(path, folder)
                digest.update(f"{number}\0{relative}\0{len(data)}\0".encode("utf-8", "surrogateescape") + data)
    return digest.hexdigest(), stats

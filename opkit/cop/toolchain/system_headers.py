"""The bytes of Python's and numpy's C headers, as one digest: part of every module's toolchain.

Every module is compiled with `-I` Python's and numpy's include folders
(opkit.cop.toolchain.compiler.python_include_dirs: sysconfig's, then numpy.get_include()).
A numpy upgraded in place keeps its folder, and may keep its C-API version, while
its headers change; so the bytes of every file under those folders are part of the
identity of a module and of the precompiled header (opkit.cop.toolchain.identity).

Hashing them (about 1.3 MB) is done once per machine, not once per process: the
digest is kept in the compile cache (`host/system-headers-<digest of the folders>`)
with the stat of every file and folder under them (path, device, inode, size,
modification and change times). A process stats them (about 220 calls for CPython
3.11 and numpy 2: 0.3 to 1.5 ms, once per process) and uses the kept digest while
every stat is the same; an edit in place changes a file's change time, a file added
or removed its folder's. In a process the stats are looked at again at most every
RECHECK_SECONDS; other folders (numpy.get_include() naming another numpy) are looked
at at once.
"""

from __future__ import annotations

import json
import os
import time

from opkit.cop.compiledir import layout
from opkit.cop.compiledir.private_fs import read_sealed, write_sealed
from opkit.cop.toolchain.compiler import python_include_dirs
from opkit.core.digest import sha256

FORMAT = "opkit-system-headers-3"
RECHECK_SECONDS = 2.0
_known: dict = {}  # folders -> (digest, the files and folders it was made from, their stamp, when last looked at)


def system_headers_digest(dirs=None) -> str:
    """Return the digest of the names and bytes of every file under `dirs` (default: python_include_dirs(), asked
    at every call: other folders are another digest at once)."""
    if dirs is None:
        dirs = python_include_dirs()
    folders = tuple(map(os.path.abspath, dirs))
    now = time.monotonic()
    known = _known.get(folders)
    if known is None or now - known[3] >= RECHECK_SECONDS:
        if known is None or _stamp(known[1]) != known[2]:
            known = _kept(folders)
        known = _known[folders] = (*known[:3], now)
    return known[0]


def _stamp(paths) -> str | None:
    """Return a digest of the stat of every path of `paths` (device, inode, size, modification and change times),
    or None if one is gone."""
    try:
        facts = [(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) for st in map(os.stat, paths)]
    except OSError:
        return None
    return sha256(repr(facts).encode()).hexdigest()


def _kept(folders) -> tuple:
    """Return (digest, paths, stamp) of `folders`: kept in the cache directory while the stamp holds, else made."""
    name = sha256(repr(folders).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    path = layout.host_dir() / f"system-headers-{name}"
    data = read_sealed(path)
    if data is not None:
        try:
            kept = json.loads(data.decode("utf-8", "surrogateescape"))
            if kept["format"] == FORMAT and len(kept["names"]) == len(folders):
                paths = [f"{folder}/{relative}" for folder, names in zip(folders, kept["names"])
                         for relative in names.split("\0")]
                if _stamp(paths) == kept["stamp"]:
                    return kept["digest"], paths, kept["stamp"]
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    digest, names = _hashed(folders)
    paths = [f"{folder}/{relative}" for folder, listed in zip(folders, names) for relative in listed]
    stamp = _stamp(paths)
    try:
        write_sealed(path, json.dumps({"format": FORMAT, "digest": digest, "stamp": stamp,
                                       "names": ["\0".join(listed) for listed in names]})
                     .encode("utf-8", "surrogateescape"))
    except OSError:  # a read-only or full cache: hashed again by the next process
        pass
    return digest, paths, stamp


def _hashed(folders) -> tuple[str, list]:
    """Return the digest of every file's name (relative to its folder) and bytes, and for each folder the relative
    names of every folder and file read (stamped by the caller after: a file changed meanwhile is read again by
    the next process, whose stamp differs)."""
    digest = sha256(FORMAT.encode())
    names = []
    for number, folder in enumerate(folders):
        listed = []
        for here, subfolders, files in os.walk(folder):
            subfolders.sort()
            listed.append(os.path.relpath(here, folder))
            for name in sorted(files):
                file = os.path.join(here, name)
                try:
                    with open(file, "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                relative = os.path.relpath(file, folder)
                listed.append(relative)
                digest.update(f"{number}\0{relative}\0{len(data)}\0".encode("utf-8", "surrogateescape") + data)
        names.append(listed)
    return digest.hexdigest(), names

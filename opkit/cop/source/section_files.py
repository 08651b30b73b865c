"""A SectionOp's `#section` files on disk: their paths (one name for one file), stamps, bytes and digest.

opkit.cop.source.section_memo names its answers by them, and opkit.cop.source.section_op
reads the same files.
"""

from __future__ import annotations

import os

from opkit.core.c_source import section_paths
from opkit.core.digest import sha256


def stamp(paths):
    """Return (path, mtime, ctime, size, device, inode) of each file, with Nones for what cannot be looked at.

    The change time too: an edit whose modification time is set back (`cp -p`,
    `rsync -t`, tar, os.utime) or falls in the same tick still moves it, and
    nothing but the kernel sets it; the inode tells a file replaced by a rename.
    """
    stamps = []
    for path in paths:
        try:
            info = os.stat(path)
            stamps.append((path, info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_dev, info.st_ino))
        except OSError:
            stamps.append((path, None, None, None, None, None))  # parse_files names the missing file
    return tuple(stamps)


def op_files(op, files=None):
    """Return the section files of `op` as normalized absolute paths (one name for one file): `files`
    (paths, PathLikes) if given, else those its class names."""
    if files is None:
        return section_paths(type(op))
    return tuple(os.path.normpath(os.path.abspath(os.fspath(f))) for f in files)


def read_files(paths):
    """Return {path: bytes} of the files `paths`, or None if one cannot be read."""
    data = {}
    try:
        for path in paths:
            with open(path, "rb") as handle:
                data[path] = handle.read()
    except (OSError, ValueError):
        return None
    return data


def contents_digest(paths, data=None):
    """Return a digest of the paths and contents (`data`, else read) of the files `paths`; None if one cannot
    be read."""
    data = read_files(paths) if data is None else data
    if data is None:
        return None
    digest = sha256()
    for path in paths:
        digest.update(b"%s\0%d\0" % (path.encode("utf-8", "surrogateescape"), len(data[path])) + data[path])
    return digest.hexdigest()

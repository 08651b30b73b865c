"""What `opkit cache prune` removes besides entries: the leftovers of killed writers, by folder.

- `pch/<digest>/`: every file of a precompiled header pch would not use as it is (opkit.cop.toolchain.pch:
  the header, the .gch and the seal holding the .gch's sha256; a kill leaves the seal of a .gch that was
  never renamed into place, or a .gch without its seal), with its lock; and any header's `.tmp-*` files;
- `.tmp-*` files (a sealed file being written, opkit.cop.compiledir.private_fs.write_sealed) at the root
  and in `host/`, `host/rendered/` and `host/jinja-*/`, once the process writing them is gone.

Only names of opkit's layout (opkit.cop.compiledir.layout) go: the host facts, kept texts, a usable
header and anything that is not opkit's stay.
"""

from __future__ import annotations

import os
import pathlib
import re
import time

from opkit.cop.compiledir.layout import (JINJA_PREFIX, PCH_DIGEST_LENGTH, PCH_FILES, PCH_LOCK, RENDERED_DIR,
                                         TMP_PREFIX)
from opkit.cop.compiledir.pch_files import intact
from opkit.cop.compiledir.private_fs import is_hex_name, remove_tree


def tidy_pch(pch: str, everything: bool):
    """Remove the precompiled headers pch would not use (or all of them, with `everything`), each under its lock.

    Only opkit's names go (a digest directory's PCH_FILES and .tmp-* files); a digest directory is
    removed only once nothing else is in it.
    """
    import fcntl

    try:
        with os.scandir(pch) as items:
            inside = [(item.name, item.path, item.is_dir(follow_symlinks=False)) for item in items]
    except OSError:
        return
    for name, path, is_dir in inside:
        if not (is_dir and is_hex_name(name, PCH_DIGEST_LENGTH)):
            continue  # not opkit's: left alone
        try:
            fd = os.open(os.path.join(path, PCH_LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a build of this header is running
            remove_all = everything or not _pch_usable(path)
            for leftover in os.listdir(path):
                own = leftover in PCH_FILES or leftover.startswith(TMP_PREFIX)
                if own and (remove_all or leftover not in PCH_FILES):
                    remove_tree(os.path.join(path, leftover))
            if remove_all:
                remove_if_empty(path)  # something that is not opkit's may still be in it
        finally:
            os.close(fd)
    if everything:
        remove_if_empty(pch)


def _pch_usable(path: str) -> bool:
    """Return whether pch would use the header in `path` as it is: the header's text, and a .gch whose sha256
    is the one sealed beside it (pch's own test; anything less is rebuilt, so it is a leftover here)."""
    return intact(pathlib.Path(path))


_SEALED_TMP = re.escape(TMP_PREFIX) + r"([1-9][0-9]{0,9})-[0-9a-f]+"  # private_fs.write_sealed's name
# A sealed file is written and renamed in well under this: an older .tmp-* file is a leftover whoever wrote it.
TMP_GRACE_SECONDS = 3600


def tidy_host(host: str):
    """Remove the .tmp-* files killed writers left in host/, host/rendered/ and host/jinja-*/ (nothing else)."""
    folders = [host]
    try:
        with os.scandir(host) as items:
            folders += [item.path for item in items if item.is_dir(follow_symlinks=False)
                        and (item.name == RENDERED_DIR or item.name.startswith(JINJA_PREFIX))]
    except OSError:
        return
    for folder in folders:
        try:
            with os.scandir(folder) as items:
                leftovers = [(item.path, item.name) for item in items if item.name.startswith(TMP_PREFIX)
                             and item.is_file(follow_symlinks=False)]
        except OSError:
            continue
        for path, name in leftovers:
            if writer_gone(path, name):
                remove_tree(path)


def writer_gone(path: str, name: str) -> bool:
    """Return whether `name` is write_sealed's temporary file (.tmp-<pid>-<hex>) and no longer being written:
    its process is gone from this machine, or it has not changed for TMP_GRACE_SECONDS (a pid of another
    machine, or one reused). Another name is not opkit's: False."""
    match = re.fullmatch(_SEALED_TMP, name)
    if match is None:
        return False
    try:
        if time.time() - os.lstat(path).st_mtime > TMP_GRACE_SECONDS:
            return True
    except OSError:
        return False
    try:
        os.kill(int(match.group(1)), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return False


def remove_if_empty(folder) -> None:
    """Remove `folder` if it is empty; otherwise (or if it is gone) leave it, harmlessly."""
    try:
        os.rmdir(folder)
    except OSError:
        pass

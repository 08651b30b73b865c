"""Whose is a cache root: opkit's mark on it, and what under it opkit made.

`opkit cache clear|prune` remove files; a compiledir pointed at a folder that
also holds a user's files must never lose one. So:

- opkit marks a root it creates (or finds holding nothing but its own layout)
  with a `CACHEDIR.TAG` (the Cache Directory Tagging convention, which backup
  tools honour) that says opkit made it;
- clear and prune refuse a root without that mark that holds anything opkit's
  layout does not explain, with one line naming it;
- under a marked root they remove only names of opkit's layout
  (opkit.cop.compiledir.layout), never through a symbolic link: anything else is
  left where it is, and `foreign_names` lists it.
"""

from __future__ import annotations

import os
import pathlib
import stat

from opkit.cop.compiledir.layout import BUILD_PREFIX, LOCK_SUFFIX, MARKER, OWN_DIRS, TMP_PREFIX, TOTAL, TRASH_PREFIX
from opkit.cop.compiledir.private_fs import is_hex_name, is_key, write_private

MARKER_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
               "# This directory is an opkit compile cache (`opkit cache info|prune|clear`).\n"
               "# opkit removes only what it made here. See https://bford.info/cachedir/\n")
_MARK_WORDS = "opkit compile cache"


class NotOpkitCacheError(OSError):
    """A cache root holds files opkit did not make and has no mark of opkit's: nothing there is removed."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = str(path)


def is_marked(root: pathlib.Path) -> bool:
    """Return True if `root` carries opkit's CACHEDIR.TAG (a regular file, not a link)."""
    path = pathlib.Path(root) / MARKER
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return _MARK_WORDS.encode() in handle.read(512)
    except OSError:
        return False


def mark(root: pathlib.Path) -> None:
    """Mark `root` as opkit's unless it is already, or it holds something opkit did not make."""
    root = pathlib.Path(root)
    if is_marked(root) or foreign_names(root):
        return
    try:
        write_private(root / MARKER, MARKER_TEXT.encode())
    except OSError:
        pass  # a read-only cache: clear and prune will adopt it when it can be written


def claim(root: pathlib.Path) -> None:
    """Make sure `root` is opkit's before anything in it is removed; raise NotOpkitCacheError if it is not."""
    root = pathlib.Path(root)
    if is_marked(root):
        return
    foreign = foreign_names(root)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise NotOpkitCacheError(
            f"{root} is not an opkit cache (it has no {MARKER} of opkit's and holds {shown}, which opkit did not "
            "make): nothing was removed; point OPKIT_COMPILEDIR at a directory of its own", root)
    mark(root)


def is_own_top(name: str, is_dir: bool) -> bool:
    """Return True if `name` (directly under the root) is of opkit's layout."""
    if is_dir:
        return (is_hex_name(name, 2) or name in OWN_DIRS or _is_build_name(name)
                or (name.startswith(TRASH_PREFIX) and _is_hex(name[len(TRASH_PREFIX):])))
    return name in (TOTAL, MARKER) or name.startswith(TMP_PREFIX)


def _is_build_name(name: str) -> bool:
    """`.build-<key>-<suffix>`: a build in progress, or a failed one (opkit.cop.store.cache)."""
    key, dash, _ = name[len(BUILD_PREFIX):].partition("-")
    return name.startswith(BUILD_PREFIX) and is_key(key) and dash == "-"


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text)


def is_own_in_shard(shard_name: str, name: str, is_dir: bool) -> bool:
    """Return True if `name` inside the shard `shard_name` is of opkit's layout: an entry or a key's lock."""
    if is_dir:
        return is_key(name) and name[:2] == shard_name
    return (name.endswith(LOCK_SUFFIX) and is_key(name[:-len(LOCK_SUFFIX)]) and name[:2] == shard_name) or \
        (is_key(name) and name[:2] == shard_name)


def foreign_names(root: pathlib.Path) -> list[str]:
    """Return the paths (relative to `root`) of what opkit's layout does not explain: at the top and in shards."""
    foreign = []
    try:
        with os.scandir(root) as items:
            tops = [(item.name, item.path, item.is_dir(follow_symlinks=False), item.is_symlink()) for item in items]
    except OSError:
        return []
    for name, path, is_dir, is_link in sorted(tops):
        if is_link or not is_own_top(name, is_dir):
            foreign.append(name)
        elif is_dir and is_hex_name(name, 2):
            try:
                with os.scandir(path) as items:
                    inside = [(item.name, item.is_dir(follow_symlinks=False), item.is_symlink()) for item in items]
            except OSError:
                continue
            foreign.extend(f"{name}/{inner}" for inner, inner_dir, inner_link in sorted(inside)
                           if inner_link or not is_own_in_shard(name, inner, inner_dir))
    return foreign

"""Every name under the compile cache's root (config.compiledir), and how an entry is read.

This module is the one owner of the layout: the other modules ask it for a name or a
folder, and `opkit cache clear|prune` remove only what it names (opkit.cop.store.owner).
Everything opkit creates under the root is private to its owner (0700 folders, 0600
files), whatever the umask.

- `<key[:2]>/<key>/`: one entry, a module's or a node object's (opkit.cop.store):
  `module.cpp` (SOURCE), the shared object or object file (its name carries a nonce
  unique to the build, so a rebuilt entry is never served from the loader's cache of
  the old file), `meta.json` (META) and a `last_used` stamp (STAMP);
  `<key[:2]>/<key>.lock` (LOCK_SUFFIX) is the key's lock file (opkit.cop.store.lock).
- `.build-<key>-*/` (BUILD_PREFIX): a build in progress, renamed into place when done; a
  failed build's folder stays, with the source its error names, until the key is built
  again or `opkit cache prune`.
- `.trash-*/` (TRASH_PREFIX): something being removed (renamed there first, so removal is atomic).
- `.tmp-*` (TMP_PREFIX): a sealed file being written, beside its final name (opkit.cop.compiledir.private_fs).
- `size-total` (TOTAL): the running total of the entries' bytes (opkit.cop.store.upkeep).
- `CACHEDIR.TAG` (MARKER): opkit's mark on a root it made (opkit.cop.store.owner).
- `pch/<digest>/` (PCH_DIR): a precompiled header (opkit.cop.toolchain.pch): PCH_FILES, and `.tmp-*` files.
- `index/` (INDEX_DIR): signature index files of older opkit versions.
- `host/` (HOST_DIR, host_dir()): what the compiler makes of this host, `host/<question>-<digest>`
  (opkit.cop.toolchain.host), and the digest of Python's and numpy's headers with their stats,
  `host/system-headers-<digest>` (opkit.cop.toolchain.system_headers);
  - `host/rendered/` (rendered_dir()): generated texts kept across processes (opkit.cop.compiledir.text_memo);
  - `host/jinja-<digest>/` (jinja_dir()): jinja2's compiled templates (opkit.cop.generate.templates).
- `opkit-demo/` (DEMO_DIR, demo_dir()): the project `opkit demo` scaffolds (opkit.cli.demo).
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import NamedTuple

from opkit.config import config

CACHE_FORMAT = "opkit-module-cache-1"
META, SOURCE, STAMP = "meta.json", "module.cpp", "last_used"
LOCK_SUFFIX = ".lock"
BUILD_PREFIX, TRASH_PREFIX, TMP_PREFIX = ".build-", ".trash-", ".tmp-"
TOTAL, MARKER = "size-total", "CACHEDIR.TAG"
PCH_DIR, INDEX_DIR, HOST_DIR, DEMO_DIR = "pch", "index", "host", "opkit-demo"
OWN_DIRS = (PCH_DIR, INDEX_DIR, HOST_DIR, DEMO_DIR)  # opkit's folders directly under the root, besides shards
RENDERED_DIR, JINJA_PREFIX = "rendered", "jinja-"  # under HOST_DIR
# In pch/<digest>/: the header, its precompiled form, that form's sealed sha256, and the folder's lock.
PCH_HEADER_FILE, PCH_GCH, PCH_DIGEST_FILE, PCH_LOCK = ("opkit_pch.hpp", "opkit_pch.hpp.gch",
                                                      "opkit_pch.hpp.gch.sha256", "lock")
PCH_FILES = (PCH_LOCK, PCH_HEADER_FILE, PCH_GCH, PCH_DIGEST_FILE)
PCH_DIGEST_LENGTH = 24
LOW_WATER = 0.9  # an eviction during a build goes down to this fraction of the cap


def root() -> pathlib.Path:
    """Return the compile cache's root: config.compiledir, absolute (read at each call: it may change)."""
    return pathlib.Path(os.path.abspath(os.path.expanduser(config.compiledir)))


def host_dir() -> pathlib.Path:
    """Return the folder of host facts, kept texts and compiled templates (created by whoever writes there)."""
    return root() / HOST_DIR


def rendered_dir() -> pathlib.Path:
    """Return the folder of generated texts kept across processes."""
    return host_dir() / RENDERED_DIR


def jinja_dir(digest: str) -> pathlib.Path:
    """Return the folder of jinja2's compiled templates for the versions and options `digest` names."""
    return host_dir() / f"{JINJA_PREFIX}{digest}"


def demo_dir() -> pathlib.Path:
    """Return the folder `opkit demo` scaffolds its project in."""
    return root() / DEMO_DIR


# Records are NamedTuples, not dataclasses: a frozen dataclass costs every process that imports
# this module about a millisecond to create, a NamedTuple a fifth of that.
class CacheEntry(NamedTuple):
    """One compiled module in the cache, as `opkit cache info` shows it."""

    key: str
    path: pathlib.Path
    module_name: str | None
    size: int
    created: float | None
    last_used: float


def read_meta(entry: pathlib.Path) -> dict:
    """Read an entry's meta.json (every read of one goes through here)."""
    meta = json.loads((entry / META).read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("meta.json is not an object")
    return meta


class Found(NamedTuple):
    key: str
    path: pathlib.Path
    size: int
    last_used: float


def entry_stats(path: str) -> tuple[int, float]:
    """Return (bytes, last use) of one entry directory; an unreadable one counts 0 bytes, never used."""
    size, last_used = 0, 0.0
    try:
        with os.scandir(path) as items:
            for item in items:
                if not item.is_dir(follow_symlinks=False):
                    st = item.stat(follow_symlinks=False)
                    size += st.st_size
                    if item.name == STAMP:
                        last_used = st.st_mtime
        if not last_used:
            last_used = os.stat(path).st_mtime
    except FileNotFoundError:
        return -1, 0.0
    except OSError:
        pass
    return size, last_used

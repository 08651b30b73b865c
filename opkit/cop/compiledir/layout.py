"""What lies where under the compile cache's root, and how an entry is read.

Layout under the root (private to its owner, 0700, like everything opkit creates
in it, whatever the umask):

- `<key[:2]>/<key>/`: one entry: `module.cpp`, the shared object (its file name
  carries a nonce unique to the build, so a rebuilt entry is never served from
  the loader's cache of the old file), `meta.json` and a `last_used` stamp;
  `<key[:2]>/<key>.lock` is the key's lock file (opkit.cop.store.lock).
- `.build-<key>-*/`: a build in progress, renamed into place when done; a failed
  build's directory stays, with the source its error names, until the key is
  built again or `opkit cache prune`.
- `.trash-*/`: something being removed (renamed there first, so removal is atomic).
- `pch/<digest>/`: precompiled headers (opkit.cop.build.pch); `index/`: signature
  index files of older opkit versions.
- `size-total`: the running total of the entries' bytes (see below).
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import NamedTuple

CACHE_FORMAT = "opkit-module-cache-1"
META, SOURCE, STAMP = "meta.json", "module.cpp", "last_used"
TOTAL = "size-total"
PCH_DIR, INDEX_DIR = "pch", "index"
PCH_DIGEST_LENGTH = 24
LOW_WATER = 0.9  # an eviction during a build goes down to this fraction of the cap
STALE_AFTER = 60.0  # seconds after which a stray temporary file (not a build) counts as left over


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

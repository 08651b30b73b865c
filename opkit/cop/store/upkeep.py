"""Keeping the compile cache in bounds: the running size total, LRU eviction, info, prune and clear.

Size accounting: each publish adds the new entry's size to `size-total` under an
flock on that file (a few bytes read and written, whatever the number of
entries); only when the total passes `config.cache_max_bytes` does a build scan
the entries and evict the least recently used down to LOW_WATER of the cap, so
one scan frees at least a tenth of the cap and scans stay rare. Every scan
(eviction, prune) rewrites the total from what it found, which corrects any
drift (entries removed by hand, a process killed between publish and
accounting). A cache without the file (made by an older opkit) is scanned once.

Prune's leftovers (failed builds, trash, locks, unusable precompiled headers, killed writers'
.tmp-* files) are listed in opkit.cop.store.leftovers.
"""

from __future__ import annotations

import os
import pathlib

from opkit.config import config
from opkit.cop.compiledir.layout import (BUILD_PREFIX, HOST_DIR, INDEX_DIR, LOCK_SUFFIX, MARKER, PCH_DIR, TMP_PREFIX,
                                         TOTAL, TRASH_PREFIX, CacheEntry, Found, entry_stats, read_meta)
from opkit.cop.compiledir.private_fs import is_hex_name, is_key, remove_tree, tree_bytes
from opkit.cop.store.leftovers import remove_if_empty, tidy_host, tidy_pch, writer_gone
from opkit.cop.store.lock import KeyLock
from opkit.cop.store.owner import claim, is_own_in_shard, is_own_top


class Upkeep:
    """What keeps one cache (a ModuleCache, `cache.upkeep`) in bounds, and inspects it: its size total,
    eviction, entries, info, prune and clear. It uses the cache's root, entry_dir, key_lock and discard."""

    def __init__(self, cache):
        self.cache = cache

    # --- size accounting -----------------------------------------------------------------

    def account(self, delta: int) -> int | None:
        """Add `delta` bytes to the running total and return it (None where it cannot be kept)."""
        import fcntl

        try:
            fd = os.open(self.cache.root / TOTAL, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                total = int(os.pread(fd, 64, 0).split()[0]) + delta
            except (ValueError, IndexError):
                # No total yet (a new cache, or one from an older opkit): count once, now.
                total = sum(found.size for found in self.scan())
            total = max(total, 0)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{total}\n".encode(), 0)
            os.fchmod(fd, 0o600)
            return total
        except OSError:
            return None
        finally:
            os.close(fd)

    def set_total(self, total: int):
        import fcntl

        try:
            fd = os.open(self.cache.root / TOTAL, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{max(total, 0)}\n".encode(), 0)
            os.fchmod(fd, 0o600)
        except OSError:
            pass
        finally:
            os.close(fd)

    # --- listing, eviction, prune, clear ---------------------------------------------------

    def _shards(self):
        """Yield the shard directories' paths (this lists the root: 256 shards at most, never the entries)."""
        try:
            with os.scandir(self.cache.root) as items:
                shards = [item.path for item in items
                          if is_hex_name(item.name, 2) and item.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return shards

    def scan(self) -> list[Found]:
        """Walk every entry: its key, path, bytes and last use (no meta.json is read)."""
        found = []
        for shard in self._shards():
            try:
                with os.scandir(shard) as items:
                    names = [item.name for item in items
                             if is_key(item.name) and item.name[:2] == os.path.basename(shard)
                             and item.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            for name in names:
                size, last_used = entry_stats(os.path.join(shard, name))
                if size >= 0:
                    found.append(Found(name, pathlib.Path(shard, name), size, last_used))
        return found

    def describe(self, found: Found) -> CacheEntry:
        try:
            meta = read_meta(found.path)
        except (OSError, ValueError):
            meta = {}
        return CacheEntry(found.key, found.path, meta.get("module_name"), found.size, meta.get("created"),
                          found.last_used)

    def remove_entry(self, key: str) -> bool:
        """Remove one entry unless someone holds its lock; return whether it was removed."""
        entry = self.cache.entry_dir(key)
        try:
            lock = self.cache.key_lock(key)
            if not lock.acquire(wait=False):
                return False
        except OSError:
            return False
        try:
            if os.path.lexists(entry):
                self.cache.discard(entry)
        except OSError:
            return False
        finally:
            lock.release(unlink=True)
        return True

    def evict(self, max_bytes: int, keep=(), target: int | None = None) -> list[CacheEntry]:
        """If the entries hold more than `max_bytes`, remove the least recently used down to `target`."""
        found = sorted(self.scan(), key=lambda item: item.last_used)
        total, removed = sum(item.size for item in found), []
        target = max_bytes if target is None else target
        if total > max_bytes:
            for item in found:
                if total <= target:
                    break
                if item.key in keep:
                    continue
                described = self.describe(item)
                if self.remove_entry(item.key):
                    total -= item.size
                    removed.append(described)
        self.set_total(total)
        return removed

    def entries(self) -> list[CacheEntry]:
        """List every entry (this walks the cache; a lookup or a build never does)."""
        return [self.describe(found) for found in self.scan()]

    def info(self) -> dict:
        """Return the root, the number of entries, and every byte under the root, by kind."""
        kinds = {"modules": 0, "precompiled headers": 0, "index": 0, "builds and failed builds": 0,
                 "trash": 0, "other": 0}
        entries, unreadable = 0, 0
        try:
            with os.scandir(self.cache.root) as items:
                tops = list(items)
        except (FileNotFoundError, NotADirectoryError):
            tops = []
        for top in tops:
            if top.name == MARKER:
                continue  # opkit's mark on the root: not cache content
            if is_hex_name(top.name, 2) and top.is_dir(follow_symlinks=False):
                try:
                    with os.scandir(top.path) as items:
                        inside = list(items)
                except OSError:
                    unreadable += 1
                    continue
                for item in inside:
                    size, bad = tree_bytes(item.path)
                    unreadable += bad
                    if is_key(item.name) and item.is_dir(follow_symlinks=False):
                        entries += 1
                        kinds["modules"] += size
                    else:
                        kinds["other"] += size  # lock files, anything stray
                continue
            size, bad = tree_bytes(top.path)
            unreadable += bad
            if top.name == PCH_DIR:
                kinds["precompiled headers"] += size
            elif top.name == INDEX_DIR:
                kinds["index"] += size
            elif top.name.startswith(BUILD_PREFIX):
                kinds["builds and failed builds"] += size
            elif top.name.startswith(TRASH_PREFIX):
                kinds["trash"] += size
            else:
                kinds["other"] += size
        return {"root": str(self.cache.root), "entries": entries, "total_bytes": sum(kinds.values()),
                "max_bytes": config.cache_max_bytes, "bytes_by_kind": kinds, "unreadable_dirs": unreadable}

    def prune(self, max_bytes: int | None = None) -> list[CacheEntry]:
        """Remove leftovers (failed builds, trash, broken PCH and index files) and evict LRU entries.

        Only what opkit's layout names is removed, never through a symbolic link,
        and only under a root that is opkit's (opkit.cop.store.owner.claim raises
        NotOpkitCacheError for another).
        """
        if not self.cache.root.is_dir():
            return []
        claim(self.cache.root)
        self._remove_leftovers(everything=False)
        return self.evict(config.cache_max_bytes if max_bytes is None else max_bytes)

    def clear(self) -> list[CacheEntry]:
        """Remove everything not in use by a build in progress: the root is left empty."""
        removed = self.prune(0)
        if self.cache.root.is_dir():
            self._remove_leftovers(everything=True)
        return removed

    def _remove_leftovers(self, everything: bool):
        """Remove what no entry needs; with `everything`, also PCH, index, lock files and the total."""
        try:
            with os.scandir(self.cache.root) as items:
                tops = list(items)
        except OSError:
            return
        for top in tops:
            name = top.name
            is_dir = top.is_dir(follow_symlinks=False)
            if top.is_symlink() or not is_own_top(name, is_dir) or name == MARKER:
                continue  # not opkit's (or its mark): left where it is
            if name.startswith(TRASH_PREFIX):
                remove_tree(top.path)
            elif name.startswith(BUILD_PREFIX):
                self._locked_remove(name[len(BUILD_PREFIX):][:64], top.path)  # is_own_top: .build-<key>-*
            elif is_hex_name(name, 2) and is_dir:
                self._tidy_shard(top.path, everything)
            elif name == PCH_DIR and is_dir:
                tidy_pch(top.path, everything)
            elif name == INDEX_DIR and is_dir:
                self._tidy_index(top.path, everything)
            elif everything:
                remove_tree(top.path)
            elif name == HOST_DIR and is_dir:
                tidy_host(top.path)
            elif name.startswith(TMP_PREFIX) and not is_dir and writer_gone(top.path, name):
                remove_tree(top.path)

    def _locked_remove(self, key: str, path: str):
        """Remove `path` (a build directory of `key`) unless a build of `key` is running."""
        try:
            lock = self.cache.key_lock(key)
            if not lock.acquire(wait=False):
                return
        except OSError:
            return
        try:
            remove_tree(path)
        finally:
            lock.release(unlink=not os.path.lexists(self.cache.entry_dir(key)))

    def _tidy_shard(self, shard: str, everything: bool):
        """Remove the lock files of keys without an entry, and the shard if that leaves it empty.

        A name that is not an entry or a key's lock (a user's file in a folder
        that happens to have a two-hex-digit name) is left alone, and so is the shard then.
        """
        try:
            with os.scandir(shard) as items:
                inside = [(item.name, item.is_dir(follow_symlinks=False), item.is_symlink()) for item in items]
        except OSError:
            return  # cannot be read: not removed (it may not be opkit's)
        shard_name = os.path.basename(shard)
        names = {name for name, is_dir, _ in inside if is_dir}
        for name, is_dir, is_link in inside:
            path = os.path.join(shard, name)
            if is_link or not is_own_in_shard(shard_name, name, is_dir):
                continue
            if is_key(name) and is_dir:
                continue
            if name.endswith(LOCK_SUFFIX) and is_key(name[:-len(LOCK_SUFFIX)]):
                if name[:-len(LOCK_SUFFIX)] not in names:
                    lock = KeyLock(pathlib.Path(path))
                    if lock.acquire(wait=False):
                        lock.release(unlink=True)
            elif is_key(name):  # a file where an entry directory belongs
                self._locked_remove(name, path)
        remove_if_empty(shard)

    def _tidy_index(self, index: str, everything: bool):
        """Remove index files (older opkit versions) whose name or content is not a key to an entry."""
        try:
            with os.scandir(index) as items:
                inside = [(item.name, item.path, item.is_file(follow_symlinks=False)) for item in items]
        except OSError:
            return
        for name, path, is_file in inside:
            if not is_file or not is_key(name):
                continue  # not an index file opkit wrote: left alone
            if everything:
                remove_tree(path)
                continue
            try:
                with open(path, "rb") as handle:
                    target = handle.read(80).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                target = ""
            if not is_key(target) or not self.cache.entry_dir(target).is_dir():
                remove_tree(path)
        remove_if_empty(index)

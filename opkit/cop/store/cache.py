"""Cache compiled modules on disk: one directory per key, one OS lock per key, an LRU size cap.

A hit loads a verified entry; a miss builds under the key's lock in a private
temporary directory and renames it into place. What lies where is
opkit.cop.compiledir.layout; the size total, eviction, info, prune and clear are
opkit.cop.store.upkeep; private files and directories are opkit.cop.compiledir.private_fs.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import pathlib
import stat
import sys
import _thread
import time
import warnings

from opkit.config import config
from opkit.cop.compiledir import layout
from opkit.cop.compiledir.layout import (BUILD_PREFIX, CACHE_FORMAT, LOCK_SUFFIX, LOW_WATER, META, SOURCE,  # noqa: F401
                                         STAMP, TRASH_PREFIX, entry_stats, read_meta)
from opkit.cop.store.owner import mark
from opkit.cop.store.upkeep import Upkeep
from opkit.cop.toolchain.depends import changed, gather
from opkit.cop.load.loader import load_module
from opkit.cop.store.lock import CacheWarning, CompileLockTimeout, KeyLock  # noqa: F401  (re-exported)
from opkit.cop.compiledir.private_fs import (CacheNotWritableError, UnsafeCacheDirError, check_private, intact,
                                  make_private_dirs, make_tree_private, private_problem, remove_tree, unwritable_fix,
                                  write_private)
from opkit.core.digest import sha256
from opkit.logs import log_info


# What this process did with compiled modules: "built" (compiled and published), "loaded" (from disk).
# Tests and `opkit.dask` read it to show that warm processes compile nothing.
module_events: collections.Counter = collections.Counter()


class _CorruptEntry(Exception):
    """A cache entry does not match its meta.json, does not load, or cannot be used."""


class _StaleEntry(_CorruptEntry):
    """A cache entry was built from a header that has changed since: built again, without a warning."""


_events_lock = _thread.allocate_lock()  # threading.Lock(), without importing threading


def _count(events: collections.Counter, what: str) -> None:
    """Count an event: modules may be built on several threads at once (opkit.link.c_linker)."""
    with _events_lock:
        events[what] += 1


def module_name_for(key: str) -> str:
    """Return the extension module name for a key: unique per content."""
    return f"opkit_{key[:32]}"


def _verify(entry: pathlib.Path, key: str, module_name: str) -> pathlib.Path:
    """Return the entry's shared object, or raise _CorruptEntry if it does not match meta.json."""
    try:
        meta = read_meta(entry)
        so_name = meta["so_name"]
        if not isinstance(so_name, str) or os.path.basename(so_name) != so_name or so_name in ("", ".", ".."):
            raise ValueError(f"so_name {so_name!r} is not a file name")
        data = (entry / so_name).read_bytes()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _CorruptEntry(f"its meta.json or shared object cannot be read ({exc})") from exc
    if (meta.get("key"), meta.get("format"), meta.get("module_name")) != (key, CACHE_FORMAT, module_name):
        raise _CorruptEntry("its meta.json names another key, format or module")
    if not intact(data, meta.get("so_size"), meta.get("so_sha256")):
        raise _CorruptEntry(f"{so_name} does not match the size and sha256 in meta.json")
    header = changed(meta.get("depends", {}))
    if header is not None:
        raise _StaleEntry(f"{header} has changed since it was built")
    return entry / so_name


class ModuleCache:
    """Compiled modules on disk under `root`, found by key, built once across processes."""

    events = module_events  # what this process did: "built", "loaded"

    def __init__(self, root):
        self.root = pathlib.Path(os.path.abspath(os.path.expanduser(os.fspath(root))))
        self._loaded = {}
        self.upkeep = Upkeep(self)  # size total, eviction, entries, info, prune and clear

    def entry_dir(self, key: str) -> pathlib.Path:
        """Return the directory that holds (or will hold) the entry for `key`."""
        return self.root / key[:2] / key

    def get_or_build(self, key: str, build, *, module_name: str, extra_meta=None):
        """Return the module for `key`, from disk or built by `build(tmp_dir) -> shared object path`."""
        module = self._loaded.get(key)
        if module is None:
            try:
                make_private_dirs(self.root)
            except OSError as exc:
                raise self._not_writable(f"the compile cache {self.root} cannot be created ({exc})") from None
            else:
                check_private(self.root)
                try:
                    module = self._load_entry(key, module_name)
                except FileNotFoundError:
                    module = self._build_locked(key, build, module_name, extra_meta)
                except _CorruptEntry as damage:
                    module = self._build_locked(key, build, module_name, extra_meta, damage)
            self._loaded[key] = module
        return module

    def lookup(self, key: str, module_name: str):
        """Return the module for `key` if a valid entry is on disk (or loaded), else None."""
        module = self._loaded.get(key)
        if module is None and self.root.is_dir():
            try:
                check_private(self.root)
                module = self._load_entry(key, module_name)
            except (FileNotFoundError, _CorruptEntry):
                return None
            self._loaded[key] = module
        return module

    def _open(self, path: pathlib.Path, module_name: str):
        """Return what an entry serves from its verified file: the loaded module (ImportError if it cannot be)."""
        return load_module(path, module_name)

    def key_lock(self, key: str) -> KeyLock:
        """Return the lock of `key`, creating its shard directory (and making an old shard private)."""
        shard = self.root / key[:2]
        make_private_dirs(shard)
        mark(self.root)  # a root opkit made (or that holds only what opkit makes) is marked as opkit's
        st = os.lstat(shard)
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafeCacheDirError(f"refusing to use the compile cache's shard {shard}: it is not a directory"
                                      " (a symbolic link?)\nfix: remove it, or choose another compiledir", shard)
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.chmod(shard, 0o700)
        return KeyLock(shard / f"{key}{LOCK_SUFFIX}")

    def _load_entry(self, key: str, module_name: str):
        """Load a verified entry; raise FileNotFoundError if absent, _CorruptEntry if it cannot be used."""
        entry = self.entry_dir(key)
        _check_shard(entry.parent)
        try:
            st = os.lstat(entry)
        except FileNotFoundError:
            raise
        except OSError as exc:  # a shard that is a file, or that cannot be searched
            raise _CorruptEntry(f"it cannot be examined ({exc.strerror or exc})") from exc
        if not stat.S_ISDIR(st.st_mode):
            raise _CorruptEntry("it is not a directory")
        problem = private_problem(st)
        if problem is not None:
            raise _CorruptEntry(problem)
        so = _verify(entry, key, module_name)
        try:
            module = self._open(so, module_name)
        except ImportError as exc:
            raise _CorruptEntry(str(exc)) from exc
        _count(self.events, "loaded")
        try:
            os.utime(entry / STAMP)  # the least recently used entries are evicted first
        except OSError:
            pass  # a read-only cache still serves its modules
        return module

    def _build_locked(self, key: str, build, module_name: str, extra_meta, damage=None):
        """Under the key's lock, load what another process built meanwhile, or build and publish.

        What the cache itself cannot do (a read-only cache, an unusable entry that
        cannot be removed) makes this build go to a private per-process directory,
        with one warning; the build's own errors (CompileError) are raised as they are.
        """
        entry = self.entry_dir(key)
        try:
            lock = self._acquire(key)
        except OSError as exc:
            if isinstance(exc, (CompileLockTimeout, UnsafeCacheDirError)):
                raise
            if damage is not None:
                return self._bypass(key, build, module_name, extra_meta, entry,
                                    f"the compiled module {entry} cannot be used ({damage}), and the compile"
                                    f" cache cannot be written to rebuild it ({exc})")
            raise self._not_writable(f"the compile cache {self.root} cannot be written ({exc})") from None
        try:
            damage = None
            try:
                if os.path.lexists(entry):
                    try:
                        return self._load_entry(key, module_name)
                    except FileNotFoundError:
                        pass
                    except _CorruptEntry as exc:
                        damage = exc
                        size = entry_stats(str(entry))[0] if os.path.isdir(entry) else 0
                        self.discard(entry)
                        self.upkeep.account(-max(size, 0))
                        if isinstance(exc, _StaleEntry):
                            log_info("the compiled module %s is out of date (%s): rebuilding", entry, exc)
                        else:
                            warnings.warn(f"the compiled module {entry} cannot be used ({exc}): removed it,"
                                          " rebuilding", CacheWarning, stacklevel=4)
                for stale in self.root.glob(f"{BUILD_PREFIX}{key}-*"):
                    remove_tree(stale)
                import tempfile  # only to build: a warm process does not import it

                tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"{BUILD_PREFIX}{key}-", dir=self.root))
                os.chmod(tmp, 0o700)
            except OSError as exc:
                if damage is not None:
                    reason = (f"the compiled module {entry} cannot be used ({damage}) and cannot be removed"
                              f" ({exc})")
                    return self._bypass(key, build, module_name, extra_meta, entry, reason)
                raise self._not_writable(f"the compile cache {self.root} cannot be written ({exc})") from None
            so, size = self._publish(tmp, key, build, module_name, extra_meta)
            try:
                module = self._open(so, module_name)
            except ImportError:
                self.discard(entry)
                raise
        finally:
            lock.release()
        total = self.upkeep.account(size)
        if total is not None and total > config.cache_max_bytes:
            self.upkeep.evict(config.cache_max_bytes, keep={key}, target=int(config.cache_max_bytes * LOW_WATER))
        return module

    def _acquire(self, key: str) -> KeyLock:
        """Take `key`'s lock, creating its shard; a shard removed meanwhile (`opkit cache clear`) is made again."""
        attempts = 3
        while True:
            lock = self.key_lock(key)
            try:
                lock.acquire()
                return lock
            except FileNotFoundError:
                attempts -= 1
                if not attempts:
                    raise

    def _not_writable(self, reason):
        """Return the error for a module that must be built where the cache cannot be written.

        Hits from such a cache are still served; an unusable entry is bypassed (see _bypass).
        """
        return CacheNotWritableError(f"{reason}, so the module cannot be built\nfix: {unwritable_fix(self.root)}",
                                     self.root)

    def _bypass(self, key, build, module_name, extra_meta, about, reason):
        """Build `key` in this process's private scratch cache: an unusable entry the cache cannot replace."""
        scratch = process_cache()
        if str(about) not in _warned:
            _warned.add(str(about))
            warnings.warn(f"{reason}; modules it cannot serve are built in {scratch.root} for this process"
                          f" only (fix: {unwritable_fix(self.root)})", CacheWarning, stacklevel=4)
        return scratch.get_or_build(key, build, module_name=module_name, extra_meta=extra_meta)

    def _publish(self, tmp: pathlib.Path, key: str, build, module_name: str, extra_meta):
        """Build into `tmp` (inside root), then rename it into place; return (shared object, entry bytes)."""
        try:
            so = pathlib.Path(build(tmp))
        except BaseException:
            # A failed build keeps its directory: the error names the source kept there.
            try:
                if not any(tmp.iterdir()):
                    tmp.rmdir()
                else:
                    make_tree_private(tmp)
            except OSError:
                pass
            raise
        if not so.is_file() or so.parent.resolve() != tmp.resolve():
            raise ValueError(f"build() must return a shared object inside {tmp}, not {so}")
        if (tmp / f"{module_name}.cpp").exists():
            (tmp / f"{module_name}.cpp").rename(tmp / SOURCE)
        # A name unique to this build: the dynamic loader caches libraries by path, so a rebuilt
        # entry under the old name could be answered with the old (unusable) module.
        suffix = so.name[len(module_name):] if so.name.startswith(module_name) else "".join(so.suffixes)
        unique = tmp / f"{module_name}.{os.urandom(6).hex()}{suffix}"
        os.rename(so, unique)
        data = unique.read_bytes()
        meta = {"key": key, "format": CACHE_FORMAT, "module_name": module_name, "so_name": unique.name,
                "so_size": len(data), "so_sha256": sha256(data).hexdigest(), "depends": gather(tmp),
                "created": time.time(), "python": sys.version.split()[0], "extra": extra_meta or {}}
        write_private(tmp / META, json.dumps(meta, indent=1).encode("utf-8"))
        write_private(tmp / STAMP, b"")
        make_tree_private(tmp)
        size = entry_stats(str(tmp))[0]
        os.rename(tmp, self.entry_dir(key))
        _count(self.events, "built")
        return self.entry_dir(key) / unique.name, size

    def discard(self, path: pathlib.Path):
        """Rename `path` out of the way atomically, then delete it (prune removes what is left)."""
        trash = self.root / f"{TRASH_PREFIX}{os.urandom(8).hex()}"
        try:
            os.rename(path, trash)
        except PermissionError:
            # Moving a directory to another parent rewrites its "..": it must be writable by us.
            os.chmod(path, 0o700)
            os.rename(path, trash)
        remove_tree(trash)


_default: ModuleCache | None = None
_warned: set[str] = set()  # what this process has warned about: one warning per unusable cache or entry
_process: ModuleCache | None = None


def _check_shard(shard: pathlib.Path):
    """Raise UnsafeCacheDirError unless the shard holding an entry is a directory of ours that no one else can write.

    The root is checked (check_private) and the entry is (private_problem), so
    every directory from the root to a module is: another user who could write
    the shard could swap the entry between the check and the load.
    """
    try:
        st = os.lstat(shard)
    except FileNotFoundError:
        raise
    except OSError:
        return  # the entry's own lstat reports it
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeCacheDirError(f"refusing to load compiled modules from {shard}: it is a symbolic link\n"
                                  f"fix: remove it (`rm {shard}`), or choose another compiledir", shard)
    problem = private_problem(st)
    if problem is not None:
        fix = f"chmod 700 {shard}" if st.st_uid == os.getuid() else f"remove {shard} (its owner or root can)"
        raise UnsafeCacheDirError(f"refusing to load compiled modules from {shard}: {problem}\n"
                                  f"fix: {fix}, or choose another compiledir", shard)


def process_cache() -> ModuleCache:
    """Return this process's private cache, removed at exit.

    It holds modules never to be reused by another process (code with no cache
    version) and those the configured cache cannot hold (read-only, broken).
    """
    global _process
    if _process is None:
        import shutil
        import tempfile

        root = tempfile.mkdtemp(prefix="opkit-scratch-")
        atexit.register(shutil.rmtree, root, True)
        _process = ModuleCache(root)
    return _process


_at_root: dict = {}  # (cache class, root) -> the one cache of that class there


def cache_at_root(cache_class):
    """Return the one `cache_class` (a ModuleCache kind: node objects, kernels) at the compile cache's root."""
    root = default_cache().root
    cache = _at_root.get((cache_class, root))
    if cache is None:
        cache = _at_root[cache_class, root] = cache_class(root)
    return cache


def default_cache() -> ModuleCache:
    """Return the cache at config.compiledir, re-created when config.compiledir changes."""
    global _default
    root = layout.root()
    cache = _default
    if cache is None or cache.root != root:
        cache = _default = ModuleCache(root)
    return cache

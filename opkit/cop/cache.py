"""Cache compiled modules on disk: one directory per key, one OS lock per key, an LRU size cap.

Layout: `<root>/<key[:2]>/<key>/` holds `module.cpp`, the shared object,
`meta.json` and a `last_used` stamp; `<root>/<key[:2]>/<key>.lock` is the
key's lock file (opkit.cop.lock). Builds run in `<root>/.build-<key>-*/` and are renamed into
place; a failed build's directory stays, with the source its error names.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time
import warnings

from opkit.config import config
from opkit.cop.load import load_module
from opkit.cop.lock import CacheWarning, CompileLockTimeout, KeyLock  # noqa: F401  (re-exported)
from opkit.errors import CompileError

CACHE_FORMAT = "opkit-module-cache-1"
META, SOURCE, STAMP = "meta.json", "module.cpp", "last_used"


class UnsafeCacheDirError(PermissionError):
    """The cache directory is not private to this user, so nothing is loaded from it."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = str(path)


class _CorruptEntry(Exception):
    """A cache entry does not match its meta.json, or does not load."""


@dataclasses.dataclass(frozen=True)
class CacheEntry:
    """One compiled module in the cache, as `opkit cache info` shows it."""

    key: str
    path: pathlib.Path
    module_name: str | None
    size: int
    created: float | None
    last_used: float


def cache_key(*parts) -> str:
    """Hash strings and bytes, with CACHE_FORMAT, into a stable hex key (never Python's hash())."""
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    for part in parts:
        if isinstance(part, str):
            part = part.encode("utf-8")
        elif not isinstance(part, (bytes, bytearray, memoryview)):
            raise TypeError(f"cache_key parts must be str or bytes, not {type(part).__name__}")
        data = bytes(part)
        # The length prefix keeps ("ab", "c") and ("a", "bc") apart.
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def module_name_for(key: str) -> str:
    """Return the extension module name for a key: unique per content."""
    return f"opkit_{key[:32]}"


def _check_private(path: pathlib.Path):
    """Raise UnsafeCacheDirError unless `path` is owned by this user and writable by no one else."""
    st = os.stat(path)
    if st.st_uid != os.getuid():
        problem = f"it is owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    elif st.st_mode & 0o022:
        problem = f"it is writable by other users (mode {st.st_mode & 0o777:o})"
    else:
        return
    raise UnsafeCacheDirError(f"refusing to load compiled modules from {path}: {problem}\n"
                              f"fix: chmod 700 {path} (owned by you), or choose another compiledir"
                              " (OPKIT_COMPILEDIR=... or opkit.config.compiledir)", path)


def _verify(entry: pathlib.Path, key: str, module_name: str) -> pathlib.Path:
    """Return the entry's shared object, or raise _CorruptEntry if it does not match meta.json."""
    try:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        so_name = meta["so_name"]
        if os.path.basename(so_name) != so_name:
            raise ValueError(f"so_name {so_name!r} is not a file name")
        data = (entry / so_name).read_bytes()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _CorruptEntry(f"its meta.json or shared object cannot be read ({exc})") from exc
    if (meta.get("key"), meta.get("format"), meta.get("module_name")) != (key, CACHE_FORMAT, module_name):
        raise _CorruptEntry("its meta.json names another key, format or module")
    if len(data) != meta.get("so_size") or hashlib.sha256(data).hexdigest() != meta.get("so_sha256"):
        raise _CorruptEntry(f"{so_name} does not match the size and sha256 in meta.json")
    return entry / so_name


def _describe(path: pathlib.Path) -> CacheEntry | None:
    """Describe one entry directory, or return None if it vanished meanwhile (evicted)."""
    try:
        size = sum(item.stat().st_size for item in os.scandir(path) if item.is_file())
        last_used = os.stat(path / STAMP if (path / STAMP).exists() else path).st_mtime
    except FileNotFoundError:
        return None
    try:
        meta = dict(json.loads((path / META).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        meta = {}
    return CacheEntry(path.name, path, meta.get("module_name"), size, meta.get("created"), last_used)


class ModuleCache:
    """Compiled modules on disk under `root`, found by key, built once across processes."""

    def __init__(self, root):
        self.root = pathlib.Path(os.path.abspath(os.path.expanduser(os.fspath(root))))
        self._loaded = {}

    def entry_dir(self, key: str) -> pathlib.Path:
        """Return the directory that holds (or will hold) the entry for `key`."""
        return self.root / key[:2] / key

    def get_or_build(self, key: str, build, *, module_name: str, extra_meta=None):
        """Return the module for `key`, from disk or built by `build(tmp_dir) -> shared object path`."""
        module = self._loaded.get(key)
        if module is None:
            os.makedirs(self.root, mode=0o700, exist_ok=True)
            _check_private(self.root)
            try:
                module = self._load_entry(key, module_name)
            except (FileNotFoundError, _CorruptEntry):
                module = self._build_locked(key, build, module_name, extra_meta)
            self._loaded[key] = module
        return module

    def lookup(self, key: str, module_name: str):
        """Return the module for `key` if a valid entry is on disk (or loaded), else None."""
        module = self._loaded.get(key)
        if module is None and self.root.is_dir():
            try:
                _check_private(self.root)
                module = self._load_entry(key, module_name)
            except (FileNotFoundError, _CorruptEntry):
                return None
            self._loaded[key] = module
        return module

    def _lock(self, key: str) -> KeyLock:
        """Return the lock of `key`, creating its shard directory."""
        shard = self.root / key[:2]
        os.makedirs(shard, mode=0o700, exist_ok=True)
        return KeyLock(shard / f"{key}.lock")

    def _load_entry(self, key: str, module_name: str):
        """Load a verified entry; raise FileNotFoundError if absent, _CorruptEntry if damaged."""
        entry = self.entry_dir(key)
        _check_private(entry.parent)
        _check_private(entry)
        so = _verify(entry, key, module_name)
        try:
            module = load_module(so, module_name)
        except ImportError as exc:
            raise _CorruptEntry(str(exc)) from exc
        (entry / STAMP).touch()  # the least recently used entries are evicted first
        return module

    def _build_locked(self, key: str, build, module_name: str, extra_meta):
        """Under the key's lock, load what another process built meanwhile, or build and publish."""
        entry = self.entry_dir(key)
        lock = self._lock(key)
        lock.acquire()
        try:
            if entry.exists():
                try:
                    return self._load_entry(key, module_name)
                except (FileNotFoundError, _CorruptEntry) as exc:
                    warnings.warn(f"removing the corrupt compiled module {entry} and rebuilding it: {exc}",
                                  CacheWarning, stacklevel=3)
                    self._remove_tree(entry)
            for stale in self.root.glob(f".build-{key}-*"):
                shutil.rmtree(stale, ignore_errors=True)
            so = self._publish(key, build, module_name, extra_meta)
            try:
                module = load_module(so, module_name)
            except ImportError:
                self._remove_tree(entry)
                raise
        finally:
            lock.release()
        self._evict(config.cache_max_bytes, keep={key})
        return module

    def _publish(self, key: str, build, module_name: str, extra_meta) -> pathlib.Path:
        """Build into a temporary directory inside root, then rename it into place."""
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=self.root))
        try:
            so = pathlib.Path(build(tmp))
        except BaseException:
            # A failed build keeps its directory: the error names the source kept there.
            if not any(tmp.iterdir()):
                tmp.rmdir()
            raise
        if not so.is_file() or so.parent.resolve() != tmp.resolve():
            raise ValueError(f"build() must return a shared object inside {tmp}, not {so}")
        if (tmp / f"{module_name}.cpp").exists():
            (tmp / f"{module_name}.cpp").rename(tmp / SOURCE)
        data = so.read_bytes()
        meta = {"key": key, "format": CACHE_FORMAT, "module_name": module_name, "so_name": so.name,
                "so_size": len(data), "so_sha256": hashlib.sha256(data).hexdigest(),
                "created": time.time(), "python": sys.version.split()[0], "extra": extra_meta or {}}
        (tmp / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
        (tmp / STAMP).touch()
        os.rename(tmp, self.entry_dir(key))
        return self.entry_dir(key) / so.name

    def _remove_tree(self, path: pathlib.Path):
        """Rename `path` out of the way atomically, then delete it."""
        trash = self.root / f".trash-{os.urandom(8).hex()}"
        os.rename(path, trash)
        shutil.rmtree(trash, ignore_errors=True)

    def _remove_entry(self, key: str) -> bool:
        """Remove one entry unless someone holds its lock; return whether it was removed."""
        entry = self.entry_dir(key)
        lock = self._lock(key)
        if not lock.acquire(wait=False):
            return False
        try:
            if entry.exists():
                self._remove_tree(entry)
        finally:
            lock.release(unlink=True)
        return True

    def _evict(self, max_bytes: int, keep=()) -> list[CacheEntry]:
        """Remove least recently used entries until the cache holds at most `max_bytes`."""
        entries = sorted(self.entries(), key=lambda item: item.last_used)
        total, removed = sum(item.size for item in entries), []
        for item in entries:
            if total <= max_bytes:
                break
            if item.key not in keep and self._remove_entry(item.key):
                total -= item.size
                removed.append(item)
        return removed

    def entries(self) -> list[CacheEntry]:
        """List every entry (this walks the cache; a lookup never does)."""
        if not self.root.is_dir():
            return []
        found = (_describe(pathlib.Path(entry.path))
                 for shard in os.scandir(self.root) if len(shard.name) == 2 and shard.is_dir()
                 for entry in os.scandir(shard.path) if entry.is_dir(follow_symlinks=False))
        return [entry for entry in found if entry is not None]

    def info(self) -> dict:
        """Return the cache's root, number of entries, total and maximum size in bytes."""
        entries = self.entries()
        return {"root": str(self.root), "entries": len(entries),
                "total_bytes": sum(item.size for item in entries), "max_bytes": config.cache_max_bytes}

    def prune(self, max_bytes: int | None = None) -> list[CacheEntry]:
        """Remove leftover build directories and evict LRU entries down to `max_bytes`."""
        if not self.root.is_dir():
            return []
        for path in self.root.glob(".trash-*"):
            shutil.rmtree(path, ignore_errors=True)
        for path in self.root.glob(".build-*"):
            lock = self._lock(path.name[len(".build-"):][:64])
            if lock.acquire(wait=False):
                shutil.rmtree(path, ignore_errors=True)
                lock.release(unlink=True)
        return self._evict(config.cache_max_bytes if max_bytes is None else max_bytes)

    def clear(self) -> list[CacheEntry]:
        """Remove every entry not locked by a build in progress."""
        return self.prune(0)


_default: ModuleCache | None = None


def default_cache() -> ModuleCache:
    """Return the cache at config.compiledir, re-created when config.compiledir changes."""
    global _default
    root = pathlib.Path(os.path.abspath(os.path.expanduser(config.compiledir)))
    cache = _default
    if cache is None or cache.root != root:
        cache = _default = ModuleCache(root)
    return cache

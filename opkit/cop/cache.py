"""Cache compiled modules on disk: one directory per key, one OS lock per key, an LRU size cap.

Layout under the root (private to its owner, 0700, like everything opkit creates
in it, whatever the umask):

- `<key[:2]>/<key>/`: one entry: `module.cpp`, the shared object (its file name
  carries a nonce unique to the build, so a rebuilt entry is never served from
  the loader's cache of the old file), `meta.json` and a `last_used` stamp;
  `<key[:2]>/<key>.lock` is the key's lock file (opkit.cop.lock).
- `.build-<key>-*/`: a build in progress, renamed into place when done; a failed
  build's directory stays, with the source its error names, until the key is
  built again or `opkit cache prune`.
- `.trash-*/`: something being removed (renamed there first, so removal is atomic).
- `pch/<digest>/`: precompiled headers (opkit.cop.pch); `index/`: signature
  index files of older opkit versions.
- `size-total`: the running total of the entries' bytes (see below).

Size accounting: each publish adds the new entry's size to `size-total` under an
flock on that file (a few bytes read and written, whatever the number of
entries); only when the total passes `config.cache_max_bytes` does a build scan
the entries and evict the least recently used down to LOW_WATER of the cap, so
one scan frees at least a tenth of the cap and scans stay rare. Every scan
(eviction, prune) rewrites the total from what it found, which corrects any
drift (entries removed by hand, a process killed between publish and
accounting). A cache without the file (made by an older opkit) is scanned once.
"""

from __future__ import annotations

import atexit
import dataclasses
import fcntl
import hashlib
import json
import os
import pathlib
import re
import shutil
import stat
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
TOTAL = "size-total"
PCH_DIR, INDEX_DIR = "pch", "index"
PCH_DIGEST_LENGTH = 24
LOW_WATER = 0.9  # an eviction during a build goes down to this fraction of the cap
STALE_AFTER = 60.0  # seconds after which a stray temporary file (not a build) counts as left over

_HEX = re.compile(r"[0-9a-f]+")


def is_hex_name(name: str, length: int) -> bool:
    """Return whether `name` is exactly `length` lowercase hex digits (a key, shard or digest)."""
    return len(name) == length and _HEX.fullmatch(name) is not None


def is_key(name: str) -> bool:
    """Return whether `name` is a cache key (64 hex digits)."""
    return is_hex_name(name, 64)


# --- private files and directories, whatever the umask -------------------------------------

def make_private_dirs(path) -> None:
    """Create `path` and its missing parents, each 0700 whatever the umask; existing ones stay as they are."""
    path = pathlib.Path(path)
    missing = []
    while not path.is_dir():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            if not directory.is_dir():
                raise NotADirectoryError(f"{directory} exists and is not a directory") from None
            continue  # made by another thread or process meanwhile
        os.chmod(directory, 0o700)  # the umask may have taken bits away (or, with mkdir's mode, added none)


def write_private(path, data: bytes) -> None:
    """Write `data` to a new or truncated file readable and writable by its owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)


def make_tree_private(path) -> None:
    """chmod what the compiler and linker left under `path`: directories 0700, files 0600."""
    os.chmod(path, 0o700)
    for directory, dirnames, filenames in os.walk(path):
        for name in dirnames:
            if not os.path.islink(os.path.join(directory, name)):
                os.chmod(os.path.join(directory, name), 0o700)
        for name in filenames:
            if not os.path.islink(os.path.join(directory, name)):
                os.chmod(os.path.join(directory, name), 0o600)


def _open_up(path) -> None:
    """Give this user rwx on every directory under `path` it owns, so the tree can be removed."""
    try:
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            return
        if st.st_mode & 0o700 != 0o700:
            os.chmod(path, 0o700)
        with os.scandir(path) as items:
            subdirs = [item.path for item in items if item.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for subdir in subdirs:
        _open_up(subdir)


def remove_tree(path) -> bool:
    """Remove a file or a directory tree, even one with mode-000 parts; return whether it is gone."""
    path = os.fspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            return False
        return True
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        _open_up(path)
        shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def _tree_bytes(path) -> tuple[int, int]:
    """Return (bytes of every non-directory under `path`, number of directories that could not be read)."""
    total, unreadable = 0, 0
    try:
        st = os.lstat(path)
    except OSError:
        return 0, 0
    if not stat.S_ISDIR(st.st_mode):
        return st.st_size, 0
    pending = [os.fspath(path)]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as items:
                for item in items:
                    try:
                        if item.is_dir(follow_symlinks=False):
                            pending.append(item.path)
                        else:
                            total += item.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            unreadable += 1
    return total, unreadable


class UnsafeCacheDirError(PermissionError):
    """The cache directory is not private to this user, so nothing is loaded from it."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = str(path)


class _CorruptEntry(Exception):
    """A cache entry does not match its meta.json, does not load, or cannot be used."""


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


def _private_problem(st) -> str | None:
    if st.st_uid != os.getuid():
        return f"it is owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if st.st_mode & 0o022:
        return f"it is writable by other users (mode {st.st_mode & 0o777:o})"
    return None


def _check_private(path: pathlib.Path):
    """Raise UnsafeCacheDirError unless `path` is owned by this user and writable by no one else."""
    problem = _private_problem(os.stat(path))
    if problem is None:
        return
    raise UnsafeCacheDirError(f"refusing to load compiled modules from {path}: {problem}\n"
                              f"fix: chmod 700 {path} (owned by you), or choose another compiledir"
                              " (OPKIT_COMPILEDIR=... or opkit.config.compiledir)", path)


def _read_meta(entry: pathlib.Path) -> dict:
    """Read an entry's meta.json (every read of one goes through here)."""
    meta = json.loads((entry / META).read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("meta.json is not an object")
    return meta


def _verify(entry: pathlib.Path, key: str, module_name: str) -> pathlib.Path:
    """Return the entry's shared object, or raise _CorruptEntry if it does not match meta.json."""
    try:
        meta = _read_meta(entry)
        so_name = meta["so_name"]
        if not isinstance(so_name, str) or os.path.basename(so_name) != so_name or so_name in ("", ".", ".."):
            raise ValueError(f"so_name {so_name!r} is not a file name")
        data = (entry / so_name).read_bytes()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _CorruptEntry(f"its meta.json or shared object cannot be read ({exc})") from exc
    if (meta.get("key"), meta.get("format"), meta.get("module_name")) != (key, CACHE_FORMAT, module_name):
        raise _CorruptEntry("its meta.json names another key, format or module")
    if len(data) != meta.get("so_size") or hashlib.sha256(data).hexdigest() != meta.get("so_sha256"):
        raise _CorruptEntry(f"{so_name} does not match the size and sha256 in meta.json")
    return entry / so_name


@dataclasses.dataclass(frozen=True)
class _Found:
    key: str
    path: pathlib.Path
    size: int
    last_used: float


def _entry_stats(path: str) -> tuple[int, float]:
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
            try:
                make_private_dirs(self.root)
            except OSError as exc:
                module = self._bypass(key, build, module_name, extra_meta, self.root,
                                      f"the compile cache {self.root} cannot be created ({exc})")
            else:
                _check_private(self.root)
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
                _check_private(self.root)
                module = self._load_entry(key, module_name)
            except (FileNotFoundError, _CorruptEntry):
                return None
            self._loaded[key] = module
        return module

    def _lock(self, key: str) -> KeyLock:
        """Return the lock of `key`, creating its shard directory (and making an old shard private)."""
        shard = self.root / key[:2]
        make_private_dirs(shard)
        st = os.lstat(shard)
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.chmod(shard, 0o700)
        return KeyLock(shard / f"{key}.lock")

    def _load_entry(self, key: str, module_name: str):
        """Load a verified entry; raise FileNotFoundError if absent, _CorruptEntry if it cannot be used."""
        entry = self.entry_dir(key)
        try:
            st = os.lstat(entry)
        except FileNotFoundError:
            raise
        except OSError as exc:  # a shard that is a file, or that cannot be searched
            raise _CorruptEntry(f"it cannot be examined ({exc.strerror or exc})") from exc
        if not stat.S_ISDIR(st.st_mode):
            raise _CorruptEntry("it is not a directory")
        problem = _private_problem(st)
        if problem is not None:
            raise _CorruptEntry(problem)
        so = _verify(entry, key, module_name)
        try:
            module = load_module(so, module_name)
        except ImportError as exc:
            raise _CorruptEntry(str(exc)) from exc
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
            lock = self._lock(key)
            lock.acquire()
        except OSError as exc:
            if isinstance(exc, (CompileLockTimeout, UnsafeCacheDirError)):
                raise
            if damage is not None:
                return self._bypass(key, build, module_name, extra_meta, entry,
                                    f"the compiled module {entry} cannot be used ({damage}), and the compile"
                                    f" cache cannot be written to rebuild it ({exc})")
            return self._bypass(key, build, module_name, extra_meta, self.root,
                                f"the compile cache {self.root} cannot be written ({exc})")
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
                        size = _entry_stats(str(entry))[0] if os.path.isdir(entry) else 0
                        self._remove_tree(entry)
                        self._account(-max(size, 0))
                        warnings.warn(f"the compiled module {entry} cannot be used ({exc}): removed it,"
                                      " rebuilding", CacheWarning, stacklevel=4)
                for stale in self.root.glob(f".build-{key}-*"):
                    remove_tree(stale)
                tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=self.root))
                os.chmod(tmp, 0o700)
            except OSError as exc:
                if damage is not None:
                    reason = (f"the compiled module {entry} cannot be used ({damage}) and cannot be removed"
                              f" ({exc})")
                    return self._bypass(key, build, module_name, extra_meta, entry, reason)
                return self._bypass(key, build, module_name, extra_meta, self.root,
                                    f"the compile cache {self.root} cannot be written ({exc})")
            so, size = self._publish(tmp, key, build, module_name, extra_meta)
            try:
                module = load_module(so, module_name)
            except ImportError:
                self._remove_tree(entry)
                raise
        finally:
            lock.release()
        total = self._account(size)
        if total is not None and total > config.cache_max_bytes:
            self._evict(config.cache_max_bytes, keep={key}, target=int(config.cache_max_bytes * LOW_WATER))
        return module

    def _bypass(self, key, build, module_name, extra_meta, about, reason):
        """Build `key` in this process's private scratch cache; warn once per problem."""
        scratch = _scratch_cache()
        if str(about) not in _warned:
            _warned.add(str(about))
            warnings.warn(f"{reason}; modules it cannot serve are built in {scratch.root} for this process"
                          " only (fix: chmod -R u+rwX the cache, or `opkit cache clear`, or choose another"
                          " compiledir)", CacheWarning, stacklevel=4)
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
                "so_size": len(data), "so_sha256": hashlib.sha256(data).hexdigest(),
                "created": time.time(), "python": sys.version.split()[0], "extra": extra_meta or {}}
        write_private(tmp / META, json.dumps(meta, indent=1).encode("utf-8"))
        write_private(tmp / STAMP, b"")
        make_tree_private(tmp)
        size = _entry_stats(str(tmp))[0]
        os.rename(tmp, self.entry_dir(key))
        return self.entry_dir(key) / unique.name, size

    def _remove_tree(self, path: pathlib.Path):
        """Rename `path` out of the way atomically, then delete it (prune removes what is left)."""
        trash = self.root / f".trash-{os.urandom(8).hex()}"
        try:
            os.rename(path, trash)
        except PermissionError:
            # Moving a directory to another parent rewrites its "..": it must be writable by us.
            os.chmod(path, 0o700)
            os.rename(path, trash)
        remove_tree(trash)

    # --- size accounting -----------------------------------------------------------------

    def _account(self, delta: int) -> int | None:
        """Add `delta` bytes to the running total and return it (None where it cannot be kept)."""
        try:
            fd = os.open(self.root / TOTAL, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                total = int(os.pread(fd, 64, 0).split()[0]) + delta
            except (ValueError, IndexError):
                # No total yet (a new cache, or one from an older opkit): count once, now.
                total = sum(found.size for found in self._scan())
            total = max(total, 0)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{total}\n".encode(), 0)
            os.fchmod(fd, 0o600)
            return total
        except OSError:
            return None
        finally:
            os.close(fd)

    def _set_total(self, total: int):
        try:
            fd = os.open(self.root / TOTAL, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
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
            with os.scandir(self.root) as items:
                shards = [item.path for item in items
                          if is_hex_name(item.name, 2) and item.is_dir(follow_symlinks=False)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return shards

    def _scan(self) -> list[_Found]:
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
                size, last_used = _entry_stats(os.path.join(shard, name))
                if size >= 0:
                    found.append(_Found(name, pathlib.Path(shard, name), size, last_used))
        return found

    def _describe(self, found: _Found) -> CacheEntry:
        try:
            meta = _read_meta(found.path)
        except (OSError, ValueError):
            meta = {}
        return CacheEntry(found.key, found.path, meta.get("module_name"), found.size, meta.get("created"),
                          found.last_used)

    def _remove_entry(self, key: str) -> bool:
        """Remove one entry unless someone holds its lock; return whether it was removed."""
        entry = self.entry_dir(key)
        try:
            lock = self._lock(key)
            if not lock.acquire(wait=False):
                return False
        except OSError:
            return False
        try:
            if os.path.lexists(entry):
                self._remove_tree(entry)
        except OSError:
            return False
        finally:
            lock.release(unlink=True)
        return True

    def _evict(self, max_bytes: int, keep=(), target: int | None = None) -> list[CacheEntry]:
        """If the entries hold more than `max_bytes`, remove the least recently used down to `target`."""
        found = sorted(self._scan(), key=lambda item: item.last_used)
        total, removed = sum(item.size for item in found), []
        target = max_bytes if target is None else target
        if total > max_bytes:
            for item in found:
                if total <= target:
                    break
                if item.key in keep:
                    continue
                described = self._describe(item)
                if self._remove_entry(item.key):
                    total -= item.size
                    removed.append(described)
        self._set_total(total)
        return removed

    def entries(self) -> list[CacheEntry]:
        """List every entry (this walks the cache; a lookup or a build never does)."""
        return [self._describe(found) for found in self._scan()]

    def info(self) -> dict:
        """Return the root, the number of entries, and every byte under the root, by kind."""
        kinds = {"modules": 0, "precompiled headers": 0, "index": 0, "builds and failed builds": 0,
                 "trash": 0, "other": 0}
        entries, unreadable = 0, 0
        try:
            with os.scandir(self.root) as items:
                tops = list(items)
        except (FileNotFoundError, NotADirectoryError):
            tops = []
        for top in tops:
            if is_hex_name(top.name, 2) and top.is_dir(follow_symlinks=False):
                try:
                    with os.scandir(top.path) as items:
                        inside = list(items)
                except OSError:
                    unreadable += 1
                    continue
                for item in inside:
                    size, bad = _tree_bytes(item.path)
                    unreadable += bad
                    if is_key(item.name) and item.is_dir(follow_symlinks=False):
                        entries += 1
                        kinds["modules"] += size
                    else:
                        kinds["other"] += size  # lock files, anything stray
                continue
            size, bad = _tree_bytes(top.path)
            unreadable += bad
            if top.name == PCH_DIR:
                kinds["precompiled headers"] += size
            elif top.name == INDEX_DIR:
                kinds["index"] += size
            elif top.name.startswith(".build-"):
                kinds["builds and failed builds"] += size
            elif top.name.startswith(".trash-"):
                kinds["trash"] += size
            else:
                kinds["other"] += size
        return {"root": str(self.root), "entries": entries, "total_bytes": sum(kinds.values()),
                "max_bytes": config.cache_max_bytes, "bytes_by_kind": kinds, "unreadable_dirs": unreadable}

    def prune(self, max_bytes: int | None = None) -> list[CacheEntry]:
        """Remove leftovers (failed builds, trash, broken PCH and index files) and evict LRU entries."""
        if not self.root.is_dir():
            return []
        self._remove_leftovers(everything=False)
        return self._evict(config.cache_max_bytes if max_bytes is None else max_bytes)

    def clear(self) -> list[CacheEntry]:
        """Remove everything not in use by a build in progress: the root is left empty."""
        removed = self.prune(0)
        if self.root.is_dir():
            self._remove_leftovers(everything=True)
        return removed

    def _remove_leftovers(self, everything: bool):
        """Remove what no entry needs; with `everything`, also PCH, index, lock files and the total."""
        try:
            with os.scandir(self.root) as items:
                tops = list(items)
        except OSError:
            return
        now = time.time()
        for top in tops:
            name = top.name
            if name.startswith(".trash-"):
                remove_tree(top.path)
            elif name.startswith(".build-"):
                key = name[len(".build-"):][:64]
                if is_key(key):
                    self._locked_remove(key, top.path)
                elif everything or _age(top.path, now) > STALE_AFTER:
                    remove_tree(top.path)
            elif is_hex_name(name, 2) and top.is_dir(follow_symlinks=False):
                self._tidy_shard(top.path, everything)
            elif name == PCH_DIR:
                _tidy_pch(top.path, everything, now)
            elif name == INDEX_DIR:
                self._tidy_index(top.path, everything, now)
            elif everything:
                remove_tree(top.path)

    def _locked_remove(self, key: str, path: str):
        """Remove `path` (a build directory of `key`) unless a build of `key` is running."""
        try:
            lock = self._lock(key)
            if not lock.acquire(wait=False):
                return
        except OSError:
            return
        try:
            remove_tree(path)
        finally:
            lock.release(unlink=not os.path.lexists(self.entry_dir(key)))

    def _tidy_shard(self, shard: str, everything: bool):
        """Remove a shard's stray files and the lock files of keys without an entry; an empty shard too."""
        try:
            with os.scandir(shard) as items:
                inside = [(item.name, item.is_dir(follow_symlinks=False)) for item in items]
        except OSError:
            remove_tree(shard)
            return
        names = {name for name, is_dir in inside if is_dir}
        for name, is_dir in inside:
            path = os.path.join(shard, name)
            if is_key(name) and is_dir:
                continue
            if name.endswith(".lock") and is_key(name[:-5]):
                if name[:-5] not in names:
                    lock = KeyLock(pathlib.Path(path))
                    if lock.acquire(wait=False):
                        lock.release(unlink=True)
            elif is_key(name):  # a file where an entry directory belongs
                self._locked_remove(name, path)
            else:
                remove_tree(path)
        try:
            os.rmdir(shard)  # fails, harmlessly, unless the shard is empty
        except OSError:
            pass

    def _tidy_index(self, index: str, everything: bool, now: float):
        """Remove index files (older opkit versions) whose name or content is not a key to an entry."""
        if everything:
            remove_tree(index)
            return
        try:
            with os.scandir(index) as items:
                inside = [(item.name, item.path, item.is_file(follow_symlinks=False)) for item in items]
        except OSError:
            remove_tree(index)
            return
        for name, path, is_file in inside:
            if not is_file or not is_key(name):
                if not is_file or _age(path, now) > STALE_AFTER:  # a recent one may be a write in progress
                    remove_tree(path)
                continue
            try:
                with open(path, "rb") as handle:
                    target = handle.read(80).decode("ascii").strip()
            except (OSError, UnicodeDecodeError):
                target = ""
            if not is_key(target) or not self.entry_dir(target).is_dir():
                remove_tree(path)


def _age(path, now: float) -> float:
    try:
        return now - os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _tidy_pch(pch: str, everything: bool, now: float):
    """Remove precompiled headers left half-built (or all of them, with `everything`), each under its lock."""
    try:
        with os.scandir(pch) as items:
            inside = [(item.name, item.path, item.is_dir(follow_symlinks=False)) for item in items]
    except OSError:
        remove_tree(pch)
        return
    for name, path, is_dir in inside:
        if not (is_dir and is_hex_name(name, PCH_DIGEST_LENGTH)):
            remove_tree(path)
            continue
        try:
            fd = os.open(os.path.join(path, "lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            remove_tree(path)  # a directory we cannot even create a lock in: no build uses it
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a build of this header is running
            complete = (os.path.isfile(os.path.join(path, "opkit_pch.hpp"))
                        and os.path.isfile(os.path.join(path, "opkit_pch.hpp.gch")))
            if everything or not complete:
                remove_tree(path)
                continue
            for leftover in os.listdir(path):
                if leftover not in ("lock", "opkit_pch.hpp", "opkit_pch.hpp.gch"):
                    remove_tree(os.path.join(path, leftover))
        finally:
            os.close(fd)
    if everything:
        try:
            os.rmdir(pch)
        except OSError:
            pass


_default: ModuleCache | None = None
_warned: set[str] = set()  # what this process has warned about: one warning per unusable cache or entry
_scratch: ModuleCache | None = None


def _scratch_cache() -> ModuleCache:
    """Return this process's private cache for modules the configured cache cannot hold."""
    global _scratch
    if _scratch is None:
        root = tempfile.mkdtemp(prefix="opkit-scratch-")
        atexit.register(shutil.rmtree, root, True)
        _scratch = ModuleCache(root)
    return _scratch


def default_cache() -> ModuleCache:
    """Return the cache at config.compiledir, re-created when config.compiledir changes."""
    global _default
    root = pathlib.Path(os.path.abspath(os.path.expanduser(config.compiledir)))
    cache = _default
    if cache is None or cache.root != root:
        cache = _default = ModuleCache(root)
    return cache

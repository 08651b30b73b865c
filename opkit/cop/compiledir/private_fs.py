"""Files and directories private to their owner, whatever the umask, and their removal.

Everything opkit creates under its cache goes through here: directories 0700,
files 0600, and a check that refuses what another user could write to.
"""

from __future__ import annotations

import os
import pathlib
import re
import stat

from opkit.core.digest import sha256

_HEX = r"[0-9a-f]+"


def is_hex_name(name: str, length: int) -> bool:
    """Return whether `name` is exactly `length` lowercase hex digits (a key, shard or digest)."""
    return len(name) == length and re.fullmatch(_HEX, name) is not None


def is_key(name: str) -> bool:
    """Return whether `name` is a cache key (64 hex digits)."""
    return is_hex_name(name, 64)


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


class CacheWriteError(OSError):
    """A file opkit keeps could not be written whole: the error names it and says what to do."""

    def __init__(self, path, exc: OSError):
        super().__init__(exc.errno, f"cannot write {path}: {exc.strerror or exc}\nfix: {write_fix(exc.errno, path)}")
        self.filename = self.path = str(path)

    def __str__(self):  # OSError's would name the file a second time
        return self.strerror if self.errno is None else f"[Errno {self.errno}] {self.strerror}"


def write_fix(errno_, path) -> str:
    """Return what to do about a file under the cache that could not be written (by the errno it failed with)."""
    import errno

    clear = "`opkit cache clear` empties opkit's cache, and OPKIT_COMPILEDIR=... puts it on another disk"
    if errno_ in (errno.ENOSPC, errno.EDQUOT):
        return f"free space on the disk holding {path} (or raise your quota); {clear}"
    if errno_ == errno.EFBIG:
        return f"raise this process's file-size limit (`ulimit -f unlimited`); {clear}"
    return f"check that {os.path.dirname(os.fspath(path)) or '.'} can be written; {clear}"


def write_private(path, data: bytes, *, sync: bool = True) -> None:
    """Write all of `data` to a new or truncated file readable and writable by its owner only.

    os.write may write fewer bytes than asked (a full disk, a file-size limit):
    it is called until every byte is written, then the file is flushed to disk
    (unless not `sync`), so a file renamed into place afterwards is whole. Any
    failure raises CacheWriteError, naming `path` and what to do.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                if written <= 0:
                    import errno

                    raise OSError(errno.EIO, "the system wrote nothing")
                view = view[written:]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except CacheWriteError:
        raise
    except OSError as exc:
        raise CacheWriteError(path, exc) from exc


SEAL = b"opkit-sealed-1 sha256="  # the first line of a kept file: its content's digest and size


def intact(data: bytes, size, digest) -> bool:
    """Return whether `data` has the `size` and sha256 hex `digest` recorded for it (a module, a kept text)."""
    return len(data) == size and sha256(data).hexdigest() == digest


def sealed(data: bytes) -> bytes:
    """Return `data` after a first line holding its sha256 and size (see unsealed)."""
    return SEAL + b"%s %d\n" % (sha256(data).hexdigest().encode(), len(data)) + data


def unsealed(blob: bytes) -> bytes | None:
    """Return the data `sealed` wrapped in `blob`, or None if it is not whole (cut short, a byte changed)."""
    head, newline, data = blob.partition(b"\n")
    if not newline or not head.startswith(SEAL):
        return None
    digest, _, size = head[len(SEAL):].partition(b" ")
    return data if size.isdigit() and intact(data, int(size), digest.decode("ascii", "replace")) else None


def read_sealed(path) -> bytes | None:
    """Return the data kept (sealed) in the file `path`, or None if it is absent, unreadable or damaged."""
    try:
        with open(path, "rb") as handle:  # not pathlib: a warm process reads dozens of these
            return unsealed(handle.read())
    except (OSError, ValueError):
        return None


def write_sealed(path, data: bytes) -> None:
    """Keep `data`, sealed, at `path`: written whole to a temporary file, then renamed (CacheWriteError if not)."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".tmp-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        make_private_dirs(path.parent)
        write_private(tmp, sealed(data))
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, CacheWriteError):
            raise
        raise CacheWriteError(path, exc) from exc


def kept_text(path, make) -> str:
    """Return the text kept in the file `path`, or else `make()`, kept at `path` for the next process.

    The file holds the text's sha256 (see sealed), checked on every read: a text cut
    short or changed on disk is made again and replaced. A reader in another process
    sees the old text or the new one (see write_sealed); a folder that cannot be
    written only means `make()` runs again next time.
    """
    data = read_sealed(path)
    if data is not None:
        return data.decode("utf-8", "surrogateescape")
    text = make()
    try:
        write_sealed(path, text.encode("utf-8", "surrogateescape"))
    except OSError:  # a read-only or full cache: the text is used, not kept
        pass
    return text


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
    import shutil  # imports bz2 and lzma: not on a warm path

    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        _open_up(path)
        shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def tree_bytes(path) -> tuple[int, int]:
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


def private_problem(st) -> str | None:
    if st.st_uid != os.getuid():
        return f"it is owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if st.st_mode & 0o022:
        return f"it is writable by other users (mode {st.st_mode & 0o777:o})"
    return None


def check_private(path: pathlib.Path):
    """Raise UnsafeCacheDirError unless `path` is owned by this user and writable by no one else."""
    problem = private_problem(os.stat(path))
    if problem is None:
        return
    if os.stat(path).st_uid != os.getuid():  # only its owner (or root) can make it private
        fix = f"sudo chown -R {_user_name()} {path} && chmod 700 {path}"
    else:
        fix = f"chmod 700 {path}"
    raise UnsafeCacheDirError(f"refusing to load compiled modules from {path}: {problem}\n"
                              f"fix: {fix}, or choose another compiledir"
                              " (OPKIT_COMPILEDIR=... or opkit.config.compiledir)", path)


class CacheNotWritableError(PermissionError):
    """A module must be built, and the cache directory cannot be created or written: say how to fix it."""

    def __init__(self, message, path):
        super().__init__(message)
        self.path = str(path)


def _user_name() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def unwritable_fix(root) -> str:
    """Return what to do about a cache directory `root` this process cannot create or write."""
    root = pathlib.Path(root)
    elsewhere = "or set OPKIT_COMPILEDIR to a directory you can write (e.g. OPKIT_COMPILEDIR=/tmp/opkit-cache)"
    existing = root
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        owner = existing.stat().st_uid
    except OSError:
        return elsewhere.replace("or set", "set", 1)
    if owner != os.getuid():
        return f"{existing} belongs to uid {owner}, not you: `sudo chown -R {_user_name()} {existing}`, {elsewhere}"
    if existing != root:
        return f"{existing} is not writable, so {root} cannot be created: `chmod u+rwx {existing}`, {elsewhere}"
    return f"`chmod -R u+rwX {root}`, or `opkit cache clear`, {elsewhere}"

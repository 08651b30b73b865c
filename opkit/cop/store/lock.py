"""One OS-level lock per cache key: a threading.Lock between threads, flock between processes.

The kernel releases an flock when its holder dies, so a SIGKILLed compile never
blocks anyone; a wait says who holds the lock and gives up after
config.compile_lock_timeout.
"""

from __future__ import annotations

import _thread
import os
import pathlib
import time
import warnings

from opkit.config import config
from opkit.errors import CompileError
from opkit.logs import log_info

LOCK_WARN_AFTER = 5.0  # seconds a wait for a compile lock lasts before it says who holds it


class CacheWarning(UserWarning):
    """A corrupt cache entry was rebuilt, or a compile lock is slow to come."""


class CompileLockTimeout(CompileError, TimeoutError):
    """Another process held a module's compile lock longer than config.compile_lock_timeout."""


_thread_locks: dict[str, _thread.LockType] = {}  # lock file path -> lock; setdefault is atomic
_held_fds: set[int] = set()


def _reset_after_fork():
    """Give a forked child fresh thread locks, and drop the lock files its parent's threads held."""
    global _thread_locks
    _thread_locks = {}
    for fd in _held_fds:
        os.close(fd)
    _held_fds.clear()


os.register_at_fork(after_in_child=_reset_after_fork)


class KeyLock:
    """Hold one key's lock: a threading.Lock between threads, flock between processes."""

    def __init__(self, path: pathlib.Path):
        self.path, self.fd = str(path), None
        self.thread_lock = _thread_locks.setdefault(self.path, _thread.allocate_lock())

    def acquire(self, wait: bool = True) -> bool:
        """Take the lock; without `wait`, return False at once if anyone holds it."""
        timer = _LockWait(self.path)
        if not timer.poll(lambda: self.thread_lock.acquire(blocking=False), wait):
            return False
        try:
            waits_before, timer.holder = timer.waits, None  # from here on, waits are for another process
            if timer.poll(self._try_flock, wait):
                if timer.waits > waits_before:
                    log_info("waited %.2f s for another process's compile (lock %s, %s)",
                             time.monotonic() - timer.start, self.path, timer.holder)
                return True
        except BaseException:
            self.thread_lock.release()
            raise
        self.thread_lock.release()
        return False

    def _try_flock(self) -> bool:
        import fcntl

        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except FileNotFoundError:
            # `opkit cache prune` removed the (then empty) directory meanwhile: make it again, private.
            directory = os.path.dirname(self.path)
            try:
                os.mkdir(directory, 0o700)
                os.chmod(directory, 0o700)
            except FileExistsError:
                pass
            return False
        try:
            if os.fstat(fd).st_mode & 0o777 != 0o600:
                os.fchmod(fd, 0o600)  # private whatever the umask, and usable by its owner
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Whoever removed the lock file held the lock then; ours may be on the removed inode.
            if os.fstat(fd).st_ino != os.stat(self.path).st_ino:
                raise FileNotFoundError(self.path)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {os.uname().nodename} {time.time():.3f}\n".encode(), 0)
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, (BlockingIOError, FileNotFoundError)):
                return False
            raise
        self.fd = fd
        _held_fds.add(fd)
        return True

    def release(self, unlink: bool = False):
        """Release the lock; with `unlink`, remove its file first (eviction does)."""
        import fcntl

        fd, self.fd = self.fd, None
        _held_fds.discard(fd)
        try:
            if unlink:
                os.unlink(self.path)
            # Unlock explicitly: a forked child may still hold a copy of this descriptor.
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
            self.thread_lock.release()


class _LockWait:
    """Poll for a lock: warn once after LOCK_WARN_AFTER, raise after config.compile_lock_timeout."""

    def __init__(self, path: str):
        self.path, self.start, self.delay, self.warned = path, time.monotonic(), 0.002, False
        self.waits, self.holder = 0, None
        self.timeout = config.compile_lock_timeout

    def poll(self, try_once, wait: bool) -> bool:
        """Call `try_once` until it succeeds; without `wait`, only once."""
        while not try_once():
            if not wait:
                return False
            if self.holder is None:
                self.holder = _lock_holder(self.path)
            self.waits += 1
            self._check(time.monotonic() - self.start)
            time.sleep(self.delay)
            self.delay = min(self.delay * 2, 0.1)
        return True

    def _check(self, waited: float):
        if waited >= self.timeout:
            raise CompileLockTimeout(
                f"timed out after {waited:.1f}s waiting for the compile lock {self.path}\n"
                f"it is {_lock_holder(self.path)}\n"
                "fix: stop that process if it is stuck, or raise config.compile_lock_timeout")
        if not self.warned and waited >= LOCK_WARN_AFTER:
            self.warned = True
            warnings.warn(f"waited {waited:.0f}s for the compile lock {self.path}: it is "
                          f"{_lock_holder(self.path)}; giving up after {self.timeout:g}s"
                          " (config.compile_lock_timeout)", CacheWarning, stacklevel=6)


def _lock_holder(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            pid, host, since = file.read().split()[:3]
        return f"held by pid {pid} on {host} for {time.time() - float(since):.1f}s"
    except (OSError, ValueError):
        return "held by an unknown process"

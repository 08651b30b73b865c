"""Generated texts kept across processes in `<compiledir>/host/rendered/`, each named by a digest of what made it.

Rendered template macros (opkit.cop.generate.templates) and expanded `#section` files
(opkit.cop.source.section_memo) are kept here, so a process whose modules are all cached
reads its C back instead of importing jinja2 or the section parser. The texts are a
memo, not modules: a process that is about to add one and finds more than MAX_KEPT
deletes them all (others make theirs again), so the folder never grows without bound,
and a warm process, which adds none, never lists the folder. Texts made while code is
generated are written once a module's key exists (`flush`, called by opkit.cop.compile),
or at exit: generating code never writes to the cache directory. Each text is kept with its
sha256 (opkit.cop.compiledir.private_fs.kept_text): one changed on disk or cut short is made again
and replaced, never compiled.
"""

from __future__ import annotations

import _thread
import functools
import os

from opkit.core.digest import sha256
from opkit.cop.compiledir.layout import rendered_dir
from opkit.cop.compiledir.private_fs import read_sealed, write_sealed

MAX_KEPT = 20000  # texts kept in the cache directory before a process clears them

_PLAIN = (str, int, float, bool, type(None))
_pending: dict = {}  # path -> (sealed data to write, folder to bound): made, not written yet
_lock = _thread.allocate_lock()  # threading.Lock(), without importing threading
_at_exit = False  # whether flush runs at exit


def is_plain(value) -> bool:
    """Return True if `value` is plain data (str, int, float, bool, None, lists, tuples, str-keyed dicts).

    Then its repr names it exactly (a tuple is not a list, 1 is not True nor 1.0),
    and the repr can be part of a memo's key.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN:
            continue
        if kind is list or kind is tuple:
            stack.extend(item)
        elif kind is dict:
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        else:
            return False
    return True


@functools.lru_cache(maxsize=None)
def _rendered_dir():
    """Return the folder of kept texts (made by the first write, never by a read)."""
    return rendered_dir()


@functools.lru_cache(maxsize=None)
def _bound(directory):
    """Empty `directory` if it holds more than MAX_KEPT texts: once a process, and only in one that adds a
    text (a warm process reads what it needs and lists nothing)."""
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries]
    except OSError:
        return
    if len(names) > MAX_KEPT:
        for name in names:
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def kept(key: str, make) -> str:
    """Return the text kept under `key` (a string naming everything the text is made of), or `make()`.

    A text made here is written by the next `flush()` (once a module's key exists), not now:
    generating code reads the cache directory but writes nothing there.
    """
    directory = _rendered_dir()
    path = os.path.join(directory, sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:40])
    data = read_sealed(path)
    if data is not None:
        return data.decode("utf-8", "surrogateescape")
    text = make()
    keep_later(path, text.encode("utf-8", "surrogateescape"), bound=directory)
    return text


def keep_later(path, data: bytes, *, bound=None) -> None:
    """Write `data` (sealed) at `path` at the next `flush()`; with `bound`, that folder is kept under MAX_KEPT."""
    global _at_exit
    with _lock:
        if not _at_exit:
            import atexit

            atexit.register(flush)  # what a process made but never keyed (it built nothing) is kept all the same
            _at_exit = True
        _pending[os.fspath(path)] = (data, bound)


def flush() -> None:
    """Write what `kept` and `keep_later` made since the last flush (opkit.cop.compile calls it once a key
    exists). A cache directory that cannot be written keeps nothing: the texts are made again next time."""
    with _lock:
        pending = list(_pending.items())
        _pending.clear()
    for path, (data, bound) in pending:
        try:
            if bound is not None:
                _bound(bound)
            write_sealed(path, data)
        except (OSError, ValueError):  # a read-only, full or unsafe cache directory: nothing is kept
            pass

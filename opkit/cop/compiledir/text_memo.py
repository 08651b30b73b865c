"""Generated texts kept across processes in `<compiledir>/host/rendered/`, each named by a digest of what made it.

Rendered template macros (opkit.cop.generate.templates) and expanded `#section` files
(opkit.cop.source.section_memo) are kept here, so a process whose modules are all cached
reads its C back instead of importing jinja2 or the section parser. The texts are a
memo, not modules: a process that is about to add one and finds more than MAX_KEPT
deletes them all (others make theirs again), so the folder never grows without bound,
and a warm process, which adds none, never lists the folder. Each text is kept with its
sha256 (opkit.cop.compiledir.private_fs.kept_text): one changed on disk or cut short is made again
and replaced, never compiled.
"""

from __future__ import annotations

import functools
import os

from opkit.core.digest import sha256
from opkit.cop.compiledir.layout import rendered_dir
from opkit.cop.compiledir.private_fs import kept_text, make_private_dirs

MAX_KEPT = 20000  # texts kept in the cache directory before a process clears them

_PLAIN = (str, int, float, bool, type(None))


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
    """Return the folder of kept texts, or None where the cache directory is unusable."""
    try:
        directory = rendered_dir()
        make_private_dirs(directory)
    except (OSError, ValueError):  # no usable cache directory (opkit show with an unsafe one): make it here
        return None
    return directory


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
    """Return the text kept under `key` (a string naming everything the text is made of), or `make()`, then kept."""
    directory = _rendered_dir()
    if directory is None:
        return make()
    path = os.path.join(directory, sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:40])

    def make_and_bound():
        _bound(directory)
        return make()

    return kept_text(path, make_and_bound)

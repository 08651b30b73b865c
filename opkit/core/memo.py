"""BoundedMemo: a dict-like memo that keeps at most `limit` entries, dropping the least recently used.

Every memo a long-lived process fills from its callers' values (functions
rebuilt from pickles, op.compute's compiled functions) is one of these, so a
loop over new values or a Dask worker serving new tasks does not grow without
bound.
"""

from __future__ import annotations

import _thread
from collections import OrderedDict


class BoundedMemo:
    """A mapping of at most `limit` entries; `get` and storing mark an entry as recently used."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError(f"a memo keeps at least one entry, got limit={limit}")
        self.limit = limit
        self._entries: OrderedDict = OrderedDict()
        self._lock = _thread.allocate_lock()  # threading.Lock(), without importing threading

    def get(self, key, default=None):
        with self._lock:
            try:
                value = self._entries[key]
            except KeyError:
                return default
            self._entries.move_to_end(key)
            return value

    def __setitem__(self, key, value):
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def __contains__(self, key):
        with self._lock:
            return key in self._entries

    def __len__(self):
        return len(self._entries)

    def clear(self):
        with self._lock:
            self._entries.clear()

    def values(self):
        with self._lock:
            return list(self._entries.values())

"""Compiled object files of single nodes, in the compile cache beside the modules.

An incremental build (opkit.cop.incremental) compiles each node's code into an
object file of its own, keyed by that code's content, and links a graph's module
from them: a graph that differs from a cached one by a few nodes compiles only
those. An object entry is an entry like a module's (same layout, lock, meta.json
with the file's size and sha256, eviction and `opkit cache` commands); serving
one verifies it and returns its path instead of loading it.
"""

from __future__ import annotations

import collections
import os
import pathlib

from opkit.cop.store.cache import ModuleCache, cache_at_root

# What this process did with node objects: "built" (compiled and published), "loaded" (found and verified).
object_events: collections.Counter = collections.Counter()


class ObjectCache(ModuleCache):
    """Node object files on disk under `root`: `get_or_build` returns a verified object's path."""

    events = object_events

    def _open(self, path: pathlib.Path, module_name: str):
        return path

    # An object is verified (size and sha256) each time it is asked for, not remembered: a link
    # must never take in a file damaged since this process last looked.
    def get_or_build(self, key: str, build, *, module_name: str, extra_meta=None):
        self._loaded.pop(key, None)
        return super().get_or_build(key, build, module_name=module_name, extra_meta=extra_meta)

    def lookup(self, key: str, module_name: str):
        self._loaded.pop(key, None)
        return super().lookup(key, module_name)


def object_cache() -> ObjectCache:
    """Return the object cache at the default cache's root (config.compiledir)."""
    return cache_at_root(ObjectCache)


def link_copy(path: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """Hard-link (else copy) a cached object into a build directory: an eviction meanwhile cannot take it away."""
    target = into / path.name
    try:
        os.link(path, target)
    except OSError:
        import shutil

        shutil.copyfile(path, target)
    return target

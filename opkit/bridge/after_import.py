"""Run a function right after a module is imported (now, if it already is): registrations with a backend
(PyTensor's numba or JAX dispatch) that must not import the backend themselves."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading

_lock = threading.Lock()
_waiting = {}  # module name -> [callbacks]


def after_import(name: str, callback) -> None:
    """Call `callback()` once module `name` is imported: now if it is, else right after its import."""
    with _lock:
        if name not in sys.modules:
            if name not in _waiting:
                _waiting[name] = []
                sys.meta_path.insert(0, _Finder(name))
            _waiting[name].append(callback)
            return
    callback()


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader the other finders give `name`, to run the callbacks after it."""

    def __init__(self, name):
        self.name = name

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _Loader(spec.loader, fullname)
        return spec


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, name):
        self.loader, self.name = loader, name

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        with _lock:
            callbacks = _waiting.pop(self.name, [])
        for callback in callbacks:
            callback()

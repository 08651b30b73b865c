"""Load a compiled extension module from its file, without sys.path."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from types import ModuleType


def load_module(path, module_name: str) -> ModuleType:
    """Load the extension module `module_name` from the shared object at `path`.

    sys.path is neither read nor changed. Names are unique per content, so two
    versions of one op can live in one process (CPython itself files a
    single-phase module under its name in sys.modules).
    """
    path = os.fspath(path)
    loader = importlib.machinery.ExtensionFileLoader(module_name, path)
    spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as exc:
        raise ImportError(f"cannot load compiled module {module_name!r} from {path}: {exc}",
                          name=module_name, path=path) from exc
    return module

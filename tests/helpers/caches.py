"""A private compile cache that starts with the session cache's precompiled header and host answers.

A test that needs a cache of its own (to see what it builds, to edit or damage entries) pays a cache's
one-time costs again: the precompiled header (about 1 s of g++) and the host answers (the compiler's identity,
-march=native, OpenMP, the linker: a few probes). `seeded(path)` copies those two from the cache in force (the
session's: tests/conftest.py's private_compiledir; its header is built there first if no test built it yet, so
what a test saves does not depend on the order tests run in), so the test compiles only its own modules. What
opkit checks of a precompiled header (its key, its sealed sha256, a private folder) it checks in the copy too:
one that does not hold is built again. Generated texts (host/rendered, jinja2's) are not copied. Tests of the precompiled
header, of the host answers or of a cold cache's first build keep a bare directory.
"""

from __future__ import annotations

import pathlib
import shutil

from opkit.cop.compiledir import layout
from opkit.cop.toolchain.compiler import find_compiler, python_include_dirs
from opkit.cop.toolchain.flags import build_flags
from opkit.cop.toolchain.pch import pch_args


def seeded(path) -> str:
    """Make `path` a compile cache holding the precompiled headers and host answers of the cache in force
    (config.compiledir); return it as a string, for config.change_flags(compiledir=...) or OPKIT_COMPILEDIR."""
    path = pathlib.Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    source = layout.root()
    if source == path.resolve():
        return str(path)
    pch_args(find_compiler(), build_flags()[0], python_include_dirs())  # this machine's, in the cache in force
    if (source / layout.PCH_DIR).is_dir() and not (path / layout.PCH_DIR).exists():
        shutil.copytree(source / layout.PCH_DIR, path / layout.PCH_DIR, copy_function=shutil.copy2,
                        ignore=shutil.ignore_patterns(f"{layout.TMP_PREFIX}*", layout.PCH_LOCK))
    host = path / layout.HOST_DIR
    host.mkdir(mode=0o700, exist_ok=True)
    for answer in (source / layout.HOST_DIR).glob("*"):
        if answer.is_file() and not answer.name.startswith(layout.TMP_PREFIX):
            shutil.copy2(answer, host / answer.name)
    return str(path)


def copy_of(cache, tmp_path) -> pathlib.Path:
    """A copy of the compile cache `cache` at tmp_path/cache, for a test to change (modes and times kept, links as
    links): a copied cache serves its entries as the original does (tests/cop/test_faults_cache_ownership.py)."""
    return pathlib.Path(shutil.copytree(cache, tmp_path / "cache", symlinks=True))

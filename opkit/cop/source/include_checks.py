"""The local headers a section file includes, checked where the file names them.

An op's identity (COp.c_code_cache_version, opkit.cop.source.headers) covers the bytes of every header
its files include. A name that cannot be looked up at all (too long, a symlink loop) or that names a
directory would be skipped there and fail later, in the compiler, far from its cause: `check_local_includes`
raises SectionError at the including file and line instead.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from opkit.cop.source.sections import _read_bytes
from opkit.errors import SectionError

_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def check_local_includes(path) -> list[Path]:
    """Return the local headers `path` pulls in with `#include "x.h"`, recursively, once each.

    A header is looked up beside the including file, then beside `path`; headers found in neither are
    the compiler's to find. A name that cannot be looked up, or names only a directory, raises
    SectionError naming the including file and line.
    """
    root = Path(os.path.abspath(path))
    found: list[Path] = []
    _collect(root, root.parent, {root.resolve()}, found)
    return found


def _collect(file: Path, root_dir: Path, seen: set, found: list) -> None:
    text = _read_bytes(file).decode("utf-8", "replace")
    for match in _LOCAL_INCLUDE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        header = _find(match.group(1), (file.parent, root_dir), file, line)
        if header is None or header.resolve() in seen:
            continue
        seen.add(header.resolve())
        found.append(header)
        try:
            _collect(header, root_dir, seen, found)
        except SectionError as exc:
            if exc.path != str(header) or exc.line is not None:
                raise
            raise SectionError(f'#include "{match.group(1)}": {exc.message}', path=file, line=line) from exc


def _find(name, directories, file, line):
    """Return the first regular file `name` names in `directories`, or None when there is none."""
    directory_found = None
    for directory in directories:
        header = Path(os.path.abspath(directory / name))
        try:
            mode = header.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise SectionError(f'#include "{_shorten(name)}": cannot look the header up: {reason}',
                               path=file, line=line) from exc
        if stat.S_ISREG(mode):
            return header
        directory_found = directory_found or header
    if directory_found is not None:
        raise SectionError(f'#include "{_shorten(name)}" names {directory_found}, which is not a regular file',
                           path=file, line=line)
    return None


def _shorten(name, limit=80):
    """Return `name`, cut in the middle when longer than `limit` characters (an error line stays readable)."""
    return name if len(name) <= limit else f"{name[:limit // 2]}...{name[-limit // 2:]} ({len(name)} characters)"

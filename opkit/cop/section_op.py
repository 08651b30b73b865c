"""The C of a SectionOp (opkit.core.c_source): its `#section` files, read as opkit.COp reads a user's.

Files are parsed once and parsed again when one changes on disk (size or mtime), so an
edited built-in `.c` file is what the next compile sees. The files are looked at (a stat
each) at most every RECHECK_SECONDS: a graph's nodes ask for their C many times a compile.
"""

from __future__ import annotations

import os
import threading
import time

from opkit.core.c_source import section_paths
from opkit.cop.cop import COp
from opkit.cop.sections import local_includes, parse_files

RECHECK_SECONDS = 0.5
_parsed: dict = {}  # paths -> ((path, mtime_ns, size) per file, parsed sections, when last stamped)
_versions: dict = {}  # paths -> (stamp of the files and their headers, the headers, version, when last stamped)
_lock = threading.Lock()


def _stamp(paths):
    stamps = []
    for path in paths:
        try:
            info = os.stat(path)
            stamps.append((path, info.st_mtime_ns, info.st_size))
        except OSError:
            stamps.append((path, None, None))  # parse_files names the missing file
    return tuple(stamps)


def parsed_sections(cls):
    """Return (paths, sections) of a SectionOp class, parsed again if a file changed."""
    paths = section_paths(cls)
    return paths, parsed_files(paths)


def parsed_files(paths):
    """Return the parsed sections of the files `paths` (a tuple), parsed again if a file changed."""
    entry = _parsed.get(paths)
    now = time.monotonic()
    if entry is not None and now - entry[2] < RECHECK_SECONDS:
        return entry[1]
    stamp = _stamp(paths)
    entry = (stamp, entry[1] if entry is not None and entry[0] == stamp else parse_files(paths), now)
    with _lock:
        _parsed[paths] = entry
    return entry[1]


class OpSections(COp):
    """A COp's C methods over a SectionOp's files, for that op (its params type and check_input).

    `files` (absolute paths) replace the class's `section_files`; `macros`, (name, value) pairs,
    are defined around every section that sees macros, after the COp's own.
    """

    def __init__(self, op, files=None, macros=()):  # noqa: the files come from the op, not a COp's arguments
        self.op = op
        self.func_name = None
        if files is None:
            self.func_files, self.code_sections = parsed_sections(type(op))
        else:
            self.func_files = tuple(os.path.normpath(os.path.abspath(os.fspath(f))) for f in files)
            self.code_sections = parsed_files(self.func_files)
        self.extra_macros = tuple(macros)

    def _macros(self, tag, node, name, sub=None, inputs=None, outputs=None):
        define, undef = super()._macros(tag, node, name, sub, inputs, outputs)
        for macro, value in self.extra_macros:
            define += f"#define {macro} {value}\n"
            undef = f"#undef {macro}\n" + undef
        return define, undef

    def c_code_cache_version(self):
        """COp's version (a digest of the files and their local headers), computed again only when one changed.

        Hashing the files on every call cost milliseconds a node; a stat of each costs microseconds.
        """
        key = (self.func_files, self.extra_macros)
        entry = _versions.get(key)
        now = time.monotonic()
        if entry is not None and (now - entry[3] < RECHECK_SECONDS or entry[0] == _stamp(self.func_files + entry[1])):
            if now - entry[3] >= RECHECK_SECONDS:
                with _lock:
                    _versions[key] = (*entry[:3], now)
            return entry[2]
        headers = tuple(str(h) for path in self.func_files for h in local_includes(path))
        stamp = _stamp(self.func_files + headers)
        version = (*super().c_code_cache_version(), self.extra_macros)
        with _lock:
            _versions[key] = (stamp, headers, version, now)
        return version

    @property
    def check_input(self):
        return self.op.check_input

    @property
    def params_type(self):
        return self.op.params_type

"""The C of a SectionOp (opkit.core.c_source): its `#section` files, read as opkit.COp reads a user's
(opkit.cop.section_memo asks this module only for what it has not kept).

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
from opkit.cop.section_memo import RECHECK_SECONDS, stamp
from opkit.cop.sections import local_includes, parse_files

_parsed: dict = {}  # paths -> ((path, mtime_ns, size) per file, parsed sections, when last stamped)
_versions: dict = {}  # paths -> (stamp of the files and their headers, the headers, version, when last stamped)
_lock = threading.Lock()


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
    current = stamp(paths)
    entry = (current, entry[1] if entry is not None and entry[0] == current else parse_files(paths), now)
    with _lock:
        _parsed[paths] = entry
    return entry[1]


class OpSections(COp):
    """A COp's C methods over a SectionOp's files, for that op (its params type and check_input).

    `files` (absolute paths) replace the class's `section_files`; `macros`, (name, value) pairs,
    are defined around every section that sees macros, after the COp's own. With `data` (path ->
    bytes), the files are parsed from those bytes (what opkit.cop.section_memo names an answer by).
    """

    def __init__(self, op, files=None, macros=(), data=None):  # noqa: the files come from the op, not a COp's
        self.op = op
        self.func_name = None
        if files is None:
            self.func_files, self.code_sections = parsed_sections(type(op))
        else:
            self.func_files = tuple(os.path.normpath(os.path.abspath(os.fspath(f))) for f in files)
            self.code_sections = parsed_files(self.func_files) if data is None else \
                parse_files(self.func_files, data=data)
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
        if entry is not None and (now - entry[3] < RECHECK_SECONDS or entry[0] == stamp(self.func_files + entry[1])):
            if now - entry[3] >= RECHECK_SECONDS:
                with _lock:
                    _versions[key] = (*entry[:3], now)
            return entry[2]
        headers = tuple(str(h) for path in self.func_files for h in local_includes(path))
        current = stamp(self.func_files + headers)
        version = self.version_now()
        with _lock:
            _versions[key] = (current, headers, version, now)
        return version

    def version_now(self):
        """Return c_code_cache_version as computed now, from the parsed sections and the files on disk."""
        return (*super().c_code_cache_version(), self.extra_macros)

    @property
    def check_input(self):
        return self.op.check_input

    @property
    def params_type(self):
        return self.op.params_type

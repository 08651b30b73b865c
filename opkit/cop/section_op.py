"""The C of a SectionOp (opkit.core.c_source): its `#section` files, read as opkit.COp reads a user's.

Files are parsed once and parsed again when one changes on disk (size or mtime), so an
edited built-in `.c` file is what the next compile sees.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading

from opkit.cop.cop import COp
from opkit.cop.sections import parse_files

_parsed: dict = {}  # class -> ((path, mtime_ns, size) per file, parsed sections)
_lock = threading.Lock()


@functools.lru_cache(maxsize=None)  # a class's files stay where they are: asked for every node, found once
def section_paths(cls) -> tuple[str, ...]:
    """Return the absolute paths of `cls.section_files`, beside the module of the class that names them."""
    for klass in cls.__mro__:
        if "section_files" in vars(klass):
            directory = os.path.dirname(os.path.abspath(inspect.getfile(klass)))
            files = klass.section_files
            files = (files,) if isinstance(files, str) else tuple(files)
            return tuple(os.path.normpath(os.path.join(directory, f)) for f in files)
    return ()


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
    stamp = _stamp(paths)
    entry = _parsed.get(cls)
    if entry is None or entry[0] != stamp:
        entry = (stamp, parse_files(paths))
        with _lock:
            _parsed[cls] = entry
    return paths, entry[1]


class OpSections(COp):
    """A COp's C methods over a SectionOp's files, for that op (its params type and check_input)."""

    def __init__(self, op):  # noqa: the files come from the op's class, not from arguments
        self.op = op
        self.func_name = None
        self.func_files, self.code_sections = parsed_sections(type(op))

    @property
    def check_input(self):
        return self.op.check_input

    @property
    def params_type(self):
        return self.op.params_type

"""The C of a SectionOp (opkit.core.c_source): its `#section` files, read as opkit.COp reads a user's.

opkit.cop.source.section_memo keeps every answer across processes and stamps the files; this module
computes an answer it has not kept, from the bytes it names (or, failing that, the files on disk,
whose errors it then raises).
"""

from __future__ import annotations

import os

from opkit.cop.source.cop import COp
from opkit.cop.source.section_files import op_files
from opkit.cop.source.sections import parse_files


def section_tags(paths, data) -> list:
    """Return the tags of the section files at `paths`, parsed from `data` (path -> bytes), sorted."""
    return sorted(parse_files(paths, data=data))


class OpSections(COp):
    """A COp's C methods over a SectionOp's files, for that op (its params type and check_input).

    `files` (absolute paths) replace the class's `section_files`; `macros`, (name, value) pairs,
    are defined around every section that sees macros, after the COp's own. With `data` (path ->
    bytes), the files are parsed from those bytes (what opkit.cop.source.section_memo names an answer by).
    """

    def __init__(self, op, files=None, macros=(), data=None):  # noqa: the files come from the op, not a COp's arguments
        self.op = op
        self.func_name = None
        self.func_files = op_files(op, files)
        self.code_sections = parse_files(self.func_files, data=data)
        self.extra_macros = tuple(macros)
        self._data = data

    def _file_bytes(self):
        """The bytes the sections were parsed from (those section_memo names the answers by), else the files'."""
        if self._data is None:
            return super()._file_bytes()
        return [self._data[os.path.abspath(path)] for path in self.func_files]  # as parse_files reads them

    def _macros(self, tag, node, name, sub=None, inputs=None, outputs=None):
        define, undef = super()._macros(tag, node, name, sub, inputs, outputs)
        for macro, value in self.extra_macros:
            define += f"#define {macro} {value}\n"
            undef = f"#undef {macro}\n" + undef
        return define, undef

    def c_code_cache_version(self):
        """COp's version (a digest of the parsed sections, the files and their local headers) and the added macros."""
        return (*super().c_code_cache_version(), self.extra_macros)

    @property
    def check_input(self):
        return self.op.check_input

    @property
    def params_type(self):
        return self.op.params_type

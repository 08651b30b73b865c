"""What every object with C code (an Op or a CType) may declare, with empty defaults."""

from __future__ import annotations


class MethodNotDefined(Exception):
    """An optional method (perform, c_code, ...) is not provided by this op or type."""


class CLinkerObject:
    """Headers, libraries, flags, shared code and cache version; override and extend with super()."""

    def c_headers(self, c_compiler=None):
        return []

    def c_header_dirs(self, c_compiler=None):
        return []

    def c_libraries(self, c_compiler=None):
        return []

    def c_lib_dirs(self, c_compiler=None):
        return []

    def c_compile_args(self, c_compiler=None):
        return []

    def c_no_compile_args(self, c_compiler=None):
        return []

    def c_init_code(self):
        return []

    def c_support_code(self):
        return ""

    def c_code_cache_version(self):
        """Return a tuple to change with the C code; () means: never reuse it across processes."""
        return ()

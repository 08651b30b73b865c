"""Where the C of opkit's own ops and types comes from: files read by opkit.cop, never Python strings.

core names files and values; it neither reads nor writes C. The two readers below are cop's: the opkit
package names them (opkit.lazy.provide), and they are loaded when first needed, whatever was imported
first (an op's c_code called before anything imported opkit.cop reads its files too):

- An op whose C is fixed text is a `SectionOp`: `section_files` names `#section` files beside the
  module that defines the class, expanded with the macros a user's COp gets (`DTYPE_INPUT_0`,
  `APPLY_SPECIFIC`, `FAIL`, `PARAMS`) and emitted after `#line` directives naming those files.
- C that varies per expression or per type comes from a jinja2 macro in opkit/templates:
  ``render("elemwise.c.j2", "loop", ...)``. Python decides what goes in; the template holds the C.
"""

from __future__ import annotations

import functools
import inspect
import os

from opkit.core import c_render
from opkit.core.c_render import render  # noqa: F401  (its home was this module; SectionOps' C uses it)
from opkit.core.op import Op
from opkit.lazy import provided

_section_reader = None  # op -> an object with a COp's C methods for that op's files


def install_c_readers(section_reader, renderer) -> None:
    """Install what reads a SectionOp's files and what renders a template macro (in place of cop's: tests do)."""
    global _section_reader
    _section_reader = section_reader
    c_render.install_renderer(renderer)


@functools.lru_cache(maxsize=None)
def section_paths(cls) -> tuple[str, ...]:
    """Return the absolute paths of `cls.section_files`, beside the module of the class that names them."""
    for klass in cls.__mro__:
        if "section_files" in vars(klass):
            directory = os.path.dirname(os.path.abspath(inspect.getfile(klass)))
            files = klass.section_files
            files = (files,) if isinstance(files, str) else tuple(files)
            return tuple(os.path.normpath(os.path.join(directory, f)) for f in files)
    return ()


def _sections(op, files=None, macros=()):
    global _section_reader
    if _section_reader is None:
        _section_reader = provided("c_section_reader")
    return _section_reader(op) if files is None else _section_reader(op, files=files, macros=macros)


def file_sections(op, files, macros=()):
    """Return a COp's C methods for `op` over the section files `files` (absolute paths), not its class's.

    `macros` are (name, value) pairs defined, besides a user's COp macros, around every section
    that sees macros (how a registered built-in op's file reads a prop, e.g. Shape_i's i).
    """
    return _sections(op, tuple(files), tuple(macros))


class SectionOp(Op):
    """An op of opkit's own whose C lives in `#section` files named by `section_files`.

    The names are relative to the directory of the module that defines the class
    (or, for a subclass elsewhere, of the nearest base class that names them).
    Every C method forwards to the files as opkit.COp reads a user's; a subclass
    may extend one with super() (add headers, a version of its own).
    """

    section_files: tuple[str, ...] = ()

    @property
    def func_files(self) -> tuple[str, ...]:
        """The absolute paths of the section files, as a COp's (opkit.COp counts a SectionOp as one)."""
        return section_paths(type(self))

    def has_c_code(self, node):
        return _sections(self).has_c_code(node)

    def c_support_code(self):
        return _sections(self).c_support_code()

    def c_init_code(self):
        return _sections(self).c_init_code()

    def c_header_dirs(self, c_compiler=None):
        return [*super().c_header_dirs(c_compiler), *_sections(self).c_header_dirs(c_compiler)]

    def c_support_code_apply(self, node, name):
        return _sections(self).c_support_code_apply(node, name)

    def c_init_code_apply(self, node, name):
        return _sections(self).c_init_code_apply(node, name)

    def c_support_code_struct(self, node, name, sub=None):
        return _sections(self).c_support_code_struct(node, name, sub)

    def c_init_code_struct(self, node, name, sub):
        return _sections(self).c_init_code_struct(node, name, sub)

    def c_cleanup_code_struct(self, node, name, sub=None):
        return _sections(self).c_cleanup_code_struct(node, name, sub)

    def c_code(self, node, name, inputs, outputs, sub):
        return _sections(self).c_code(node, name, inputs, outputs, sub)

    def c_code_cleanup(self, node, name, inputs, outputs, sub):
        return _sections(self).c_code_cleanup(node, name, inputs, outputs, sub)

    def c_code_cache_version(self):
        return _sections(self).c_code_cache_version()

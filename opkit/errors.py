"""Public exceptions: each carries its facts as attributes, its message one fact per line."""

from __future__ import annotations


class SectionError(ValueError):
    """A `#section` C file is malformed; names the file and line."""

    def __init__(self, message, path=None, line=None, tag=None):
        self.path = None if path is None else str(path)
        self.line = line
        self.tag = tag
        self.message = message
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        super().__init__(where + message)


class CompileError(RuntimeError):
    """The C compiler rejected a generated module (or could not be run)."""

    def __init__(self, message, command=None, returncode=None, source_path=None, errors=()):
        self.command = command
        self.returncode = returncode
        self.source_path = None if source_path is None else str(source_path)
        self.errors = list(errors)
        self.message = message
        super().__init__(message)


class MissingModuleError(CompileError):
    """No C++ compiler here, and no installed package ships a module for this node's signature."""

    def __init__(self, message, node=None, signature=None, build_command=None):
        super().__init__(message)
        self.node = node
        self.signature = signature
        self.build_command = build_command


class PluginError(RuntimeError):
    """An op package registered something invalid, or two registered one name."""

    def __init__(self, message, name=None, distributions=()):
        self.name = name
        self.distributions = tuple(distributions)
        super().__init__(message)


class ValueOverflowError(TypeError, OverflowError):
    """A Python integer does not fit the integer dtype it is given to (a TypeError, and numpy's OverflowError)."""


class UsageError(Exception):
    """The `opkit` command was called with wrong arguments (exit status 2)."""


def add_note(exc, text):
    """Add a note to an exception (Python 3.11+; a no-op before)."""
    if hasattr(exc, "add_note"):
        exc.add_note(text)


for _cls in (SectionError, CompileError, MissingModuleError, PluginError):
    _cls.__module__ = "opkit"

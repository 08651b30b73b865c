"""pytensor.link.c.exceptions: ``CompileError`` (opkit's: command, returncode, source_path, errors)."""

from opkit.errors import CompileError

__all__ = ["CompileError"]

"""The `opkit` command: see, check, build and scaffold op packages.

Each command group lives in its own module, imported only when one of its commands
runs (opkit.cli.commands holds every command's arguments), so `opkit --help` stays fast.
"""

from __future__ import annotations

import os
import sys

from opkit import __version__
from opkit.cli.commands import Parser, add_commands, run_command, whole_number
from opkit.cli.errors import BadArguments, CommandFailed
from opkit.config import config_error
from opkit.errors import CompileError, PluginError, SectionError, UsageError

__all__ = ["BadArguments", "CommandFailed", "Parser", "build_parser", "main", "whole_number"]

# Errors whose message is the whole story (no traceback needed). A command turns the registry's
# UnknownNameError into BadArguments (opkit.cli.ops._installed_op), naming what is installed.
_REPORTED = (CommandFailed, PluginError, CompileError, SectionError)


def build_parser() -> Parser:
    """Return the parser of every `opkit` command."""
    parser = Parser(prog="opkit", description="Write, inspect, build and share opkit ops.")
    parser.add_argument("--version", action="version", version=f"opkit {__version__}")
    add_commands(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    return parser


def main(argv=None) -> int:
    """Run `opkit` with `argv` (default: sys.argv[1:]) and return its exit status."""
    try:
        status = _run_command(argv)
        sys.stdout.flush()  # a closed pipe (`opkit list | head -1`) shows up here, not at exit
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 1


def _run_command(argv) -> int:
    if config_error():  # before --help too: every command would meet it
        print(f"opkit: error: {config_error()}", file=sys.stderr)
        return 1
    try:
        args = build_parser().parse_args(argv)
        try:
            return run_command(args) or 0
        except BadArguments as exc:
            args._parser.error(str(exc))
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        print("opkit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if not isinstance(exc, _REPORTED):
            raise
        print(f"opkit: error: {exc}", file=sys.stderr)
        return 1


def _silence_stdout():
    """Point stdout at /dev/null after its reader went away, so exiting does not fail to flush it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture it)
        pass

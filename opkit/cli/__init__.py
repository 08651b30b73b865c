"""The `opkit` command: see, check, build and scaffold op packages.

Each command group lives in its own module, which imports nothing heavy until
its command runs, so `opkit --help` and `opkit check` stay fast.
"""

from __future__ import annotations

import argparse
import sys

from opkit.errors import CompileError, PluginError, SectionError, UsageError

# module -> the commands it adds, in the order `opkit --help` lists them
_COMMAND_MODULES = ("opkit.cli.ops", "opkit.cli.check", "opkit.cli.cache", "opkit.cli.new",
                    "opkit.cli.doctor", "opkit.cli.demo")


class CommandFailed(Exception):
    """A command could not do what was asked; the message says why and what to do (exit status 1)."""


class BadArguments(CommandFailed):
    """An argument's value cannot work (malformed, inconsistent, naming nothing there is): a usage error.

    Exit status 2 with the command's usage line, as argparse's own errors (a bad ``type=``
    value, an invalid choice). A command that fails on arguments that are fine is a
    CommandFailed (exit status 1).
    """


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError instead of exiting, so main() picks the exit status.

    Each (sub)parser records itself as ``args._parser``: the innermost one that parsed
    the command line, whose usage line a BadArguments raised by the command shows.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.set_defaults(_parser=self)

    def parse_args(self, args=None, namespace=None):
        # argparse reports unknown arguments with the top-level usage; the command's own is the useful one.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            getattr(parsed, "_parser", self).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def error(self, message):
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


def whole_number(option: str, minimum: int, maximum: int | None = None):
    """Return an argparse type: an integer in [minimum, maximum], else a usage error naming `option`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{option} must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{option} must be at most {maximum}, not {value}")
        return value

    return parse


def build_parser() -> Parser:
    """Return the parser of every `opkit` command."""
    import importlib

    parser = Parser(prog="opkit", description="Write, inspect, build and share opkit ops.")
    from opkit import __version__

    parser.add_argument("--version", action="version", version=f"opkit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in _COMMAND_MODULES:
        importlib.import_module(module_name).add_commands(commands)
    return parser


def _reportable(exc: BaseException) -> bool:
    """Return True for errors whose message is the whole story (no traceback needed)."""
    from opkit.plugins.registry import UnknownNameError

    return isinstance(exc, (CommandFailed, PluginError, CompileError, SectionError, UnknownNameError))


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
    from opkit.config import config_error

    if config_error():  # before --help too: every command would meet it
        print(f"opkit: error: {config_error()}", file=sys.stderr)
        return 1
    try:
        args = build_parser().parse_args(argv)
        try:
            return args.run(args) or 0
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
        if not _reportable(exc):
            raise
        print(f"opkit: error: {exc}", file=sys.stderr)
        return 1


def _silence_stdout():
    """Point stdout at /dev/null after its reader went away, so exiting does not fail to flush it."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture it)
        pass

"""What a command raises when it cannot do what was asked: main() prints the message and picks the exit status."""

from __future__ import annotations


class CommandFailed(Exception):
    """A command could not do what was asked; the message says why and what to do (exit status 1)."""


class BadArguments(CommandFailed):
    """An argument's value cannot work (malformed, inconsistent, naming nothing there is): a usage error.

    Exit status 2 with the command's usage line, as argparse's own errors (a bad ``type=``
    value, an invalid choice). A command that fails on arguments that are fine is a
    CommandFailed (exit status 1).
    """

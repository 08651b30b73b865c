"""Every `opkit` command's arguments, and the function that runs it, named as (module, function).

Nothing here imports a command's module: `opkit --help` and argument errors cost no more than
argparse. `run_command` imports the module of the command that runs (through opkit.lazy, so the
import graph reads the module names below), and that module imports what it needs at its top.
"""

from __future__ import annotations

import argparse

from opkit.errors import UsageError
from opkit.lazy import load

LISTING = "opkit.cli.listing"
OPS = "opkit.cli.ops"
CHECK = "opkit.cli.check"
CACHE = "opkit.cli.cache"
NEW = "opkit.cli.new"
DOCTOR = "opkit.cli.doctor"
DEMO = "opkit.cli.demo"


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


def run_command(args):
    """Run the command `args` were parsed for: import its module, call its function; return the exit status."""
    module, function = args.run
    # lazy: a command's module (and what it imports) loads when that command runs, not for `opkit --help`
    return load(module, function)(args)


def add_commands(commands):
    """Add every command to the `opkit` subcommands, in the order `opkit --help` lists them."""
    for add in (_ops_commands, _check_command, _cache_command, _new_command, _doctor_command, _demo_command):
        add(commands)


def _ops_commands(commands):
    """list (opkit.cli.listing); info, show and build (opkit.cli.ops): the installed ops, the C of one."""
    listing = commands.add_parser("list", help="list the ops of installed op packages, their packages and C files")
    listing.add_argument("--builtins", action="store_true", help="list opkit's own ops (add, sum, ...) too")
    listing.add_argument("--json", action="store_true",
                         help="print JSON: every op (built-ins too, each with a 'builtin' field), type and plugin")
    listing.set_defaults(run=(LISTING, "run_list"))
    info = commands.add_parser("info", help="show where an op comes from")
    info.add_argument("op", metavar="OP", help="op name, or DIST:NAME")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(run=(OPS, "run_info"))
    for name, text in (("show", "print the generated C of one node of OP"),
                       ("build", "compile one node of OP into the cache (--into: and into a package)")):
        parser = commands.add_parser(name, help=text)
        parser.add_argument("op", metavar="OP", help="op name, DIST:NAME, or a #section C file (the installed op "
                                                     "that uses it; else the file alone: tensor inputs as --dtypes "
                                                     "and --ndims say, one output of their common dtype)")
        parser.add_argument("--dtypes", required=True,
                            help="input dtypes, e.g. float64,float64; a registered type name "
                                 "(dvector, double, ...) is used as that type")
        parser.add_argument("--ndims", help="input ranks, e.g. 1,0 (default: 1 for every tensor input)")
        parser.set_defaults(run=(OPS, f"run_{name}"))
    show_arch = "a GPU op (one with #section kernels): its host module for this CUDA architecture (default: the GPU's)"
    parser.add_argument("--into", metavar="PACKAGE_DIR",
                        help="also store the module in this op package's source directory (the one holding the "
                             "op's __init__.py) as package data its wheel ships: machines without a compiler "
                             "load it from there")
    commands.choices["show"].add_argument("--arch", metavar="ARCH", help=show_arch)
    parser.add_argument("--arch", metavar="ARCHS",
                        help="a GPU op (one with #section kernels): build for these CUDA architectures, e.g. "
                             "sm_80,sm_90 (NVRTC, no GPU needed): each one's host module and kernels; with --into, "
                             "ship each one's cubin and PTX, for GPUs without NVRTC")


def _check_command(commands):
    """check: lint #section C files (opkit.cli.check)."""
    check = commands.add_parser("check", help="lint #section C files (tags, stray code, macros, return)")
    check.add_argument("files", metavar="OP|FILE|DIR", nargs="+",
                       help="a C file split by #section lines, a directory (its .c and .cu files, recursively) or an "
                            "installed op's name (its C files)")
    check.add_argument("--strict", action="store_true", help="exit with status 1 on warnings too")
    check.add_argument("--json", action="store_true", help="print the problems as JSON")
    check.set_defaults(run=(CHECK, "run_check"))


def _cache_command(commands):
    """cache, with info, prune and clear: the compiled-module cache (opkit.cli.cache)."""
    cache = commands.add_parser("cache", help="show, prune or clear the compiled-module cache (default: info)")
    cache.set_defaults(run=(CACHE, "run_info"))  # `opkit cache` alone is `opkit cache info`, and takes its options
    _info_options(cache, argparse.SUPPRESS)
    actions = cache.add_subparsers(dest="action", metavar="ACTION")
    info = actions.add_parser("info", help="where the cache is, how many modules, how big")
    _info_options(info, argparse.SUPPRESS)  # given before `info` (`opkit cache --json info`) they still count
    info.set_defaults(run=(CACHE, "run_info"))
    prune = actions.add_parser("prune", help="remove leftovers (failed or killed builds, trash, stale files)"
                                             " and evict least recently used modules")
    prune.add_argument("--max-bytes", type=whole_number("--max-bytes", 0), default=None,
                       help="evict down to this size (default: config.cache_max_bytes)")
    prune.set_defaults(run=(CACHE, "run_prune"))
    actions.add_parser("clear", help="remove everything in the cache (modules, precompiled headers, leftovers)"
                       ).set_defaults(run=(CACHE, "run_clear"))


def _info_options(parser, default):
    parser.add_argument("--json", action="store_true", default=default, help="print JSON")
    parser.add_argument("--by-op", action="store_true", default=default,
                        help="one row per C file (an op's #section file) the cached modules were generated from: "
                             "its op, how many modules, how big")


def _new_command(commands):
    """new: scaffold an op package (opkit.cli.new)."""
    new = commands.add_parser("new", help="scaffold an op package: pyproject, op, .c file, tests")
    new.add_argument("name", metavar="NAME", help="project name, e.g. my_ops (the package is its snake_case)")
    new.add_argument("--directory", default=".", help="create NAME/ in this directory (default: here)")
    new.add_argument("--params", action="store_true",
                     help="give the op a parameter (scale) read by the C code as PARAMS->scale")
    new.add_argument("--cuda", action="store_true",
                     help="add a GPU version of the op: a CUDA kernel (#section kernels) and its host code, "
                          "tested on the CPU through device='cuda-interpret' and on a GPU where there is one")
    new.set_defaults(run=(NEW, "run_new"))


def _doctor_command(commands):
    """doctor: check what building ops needs (opkit.cli.doctor)."""
    doctor = commands.add_parser("doctor", help="check the compiler, headers, cache and plugins")
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")
    doctor.set_defaults(run=(DOCTOR, "run_doctor"))


def _demo_command(commands):
    """demo: VectorTimesVector end to end (opkit.cli.demo)."""
    demo = commands.add_parser("demo", help="VectorTimesVector end to end: compile, check, time, cache hit")
    demo.add_argument("--size", type=whole_number("--size", 1, 10**9), default=1_000_000,
                      help="vector length (default: 1000000)")
    demo.add_argument("--repeat", type=whole_number("--repeat", 1, 10**9), default=20,
                      help="timed calls, best taken (default: 20)")
    demo.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # the fresh second process
    demo.set_defaults(run=(DEMO, "run_demo"))

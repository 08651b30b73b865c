"""`opkit cache [info|prune|clear]`: the compiled-module cache at config.compiledir (`opkit cache` is info)."""

from __future__ import annotations

import argparse

from opkit.cli import whole_number
from opkit.cli.cache_ops import human_size


def add_commands(commands):
    """Add cache (with info, prune and clear) to the `opkit` subcommands."""
    cache = commands.add_parser("cache", help="show, prune or clear the compiled-module cache (default: info)")
    cache.set_defaults(run=run_info)  # `opkit cache` alone is `opkit cache info`, and takes info's options
    _info_options(cache, argparse.SUPPRESS)
    actions = cache.add_subparsers(dest="action", metavar="ACTION")
    info = actions.add_parser("info", help="where the cache is, how many modules, how big")
    _info_options(info, argparse.SUPPRESS)  # given before `info` (`opkit cache --json info`) they still count
    info.set_defaults(run=run_info)
    prune = actions.add_parser("prune", help="remove leftovers (failed or killed builds, trash, stale files)"
                                                     " and evict least recently used modules")
    prune.add_argument("--max-bytes", type=whole_number("--max-bytes", 0), default=None,
                       help="evict down to this size (default: config.cache_max_bytes)")
    prune.set_defaults(run=run_prune)
    actions.add_parser("clear", help="remove everything in the cache (modules, precompiled headers, leftovers)"
                       ).set_defaults(run=run_clear)


def _info_options(parser, default):
    parser.add_argument("--json", action="store_true", default=default, help="print JSON")
    parser.add_argument("--by-op", action="store_true", default=default,
                        help="one row per C file (an op's #section file) the cached modules were generated from: "
                             "its op, how many modules, how big")


def _refuse_info_options(args):
    """prune and clear print what they removed; --json and --by-op given before them are info's, not theirs."""
    from opkit.cli import BadArguments

    given = [option for option, dest in (("--json", "json"), ("--by-op", "by_op")) if getattr(args, dest, False)]
    if given:
        what = f"{given[0]} is an option" if len(given) == 1 else f"{' and '.join(given)} are options"
        raise BadArguments(f"{what} of `opkit cache` (info), not of `opkit cache {args.action}`")


def run_info(args):
    from opkit.cop.store.cache import default_cache

    args.json, args.by_op = getattr(args, "json", False), getattr(args, "by_op", False)

    cache = default_cache()
    info = cache.upkeep.info()
    if args.by_op:
        from opkit.cli.cache_ops import by_op, print_by_op

        info["by_op"] = by_op(cache)
        if not args.json:
            return print_by_op(info)
    if args.json:
        import json

        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"root:     {info['root']}")
    print(f"entries:  {info['entries']}")
    print(f"size:     {human_size(info['total_bytes'])} (modules: at most {human_size(info['max_bytes'])})")
    for kind, size in info["bytes_by_kind"].items():
        if size:
            print(f"  {kind}: {human_size(size)}")
    if info["unreadable_dirs"]:
        print(f"  and {info['unreadable_dirs']} unreadable director(ies) not counted;"
              " `opkit cache prune` removes unusable entries")
    return 0


def _report_removed(cache, before, after, removed, verb):
    """Print what went: the modules (as the first line always began), then every other kind, as measured."""
    from opkit.cop.store.owner import foreign_names

    gone = {kind: max(0, size - after["bytes_by_kind"].get(kind, 0)) for kind, size in before["bytes_by_kind"].items()}
    line = f"{verb} {len(removed)} module(s), {human_size(gone.pop('modules', 0))}"
    others = [f"{kind} {human_size(size)}" for kind, size in gone.items() if size]
    total = max(0, before["total_bytes"] - after["total_bytes"])
    if others:
        line += f"; removed {', '.join(others)}"
    print(f"{line}: {human_size(total)} in all" if others else line)
    left = foreign_names(cache.root) if cache.root.is_dir() else []
    if left:
        shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
        print(f"left {len(left)} item(s) opkit did not make in {cache.root}: {shown}")


def _remove(action, verb):
    """Run the cache's clear or prune; a root that is not opkit's is one error line."""
    from opkit.cli import CommandFailed
    from opkit.cop.store.cache import default_cache
    from opkit.cop.store.owner import NotOpkitCacheError

    cache = default_cache()
    before = cache.upkeep.info()  # every count printed is measured: what was there, less what is left
    try:
        removed = action(cache)
    except NotOpkitCacheError as exc:
        raise CommandFailed(str(exc)) from None
    _report_removed(cache, before, cache.upkeep.info(), removed, verb)
    return 0


def run_prune(args):
    _refuse_info_options(args)
    return _remove(lambda cache: cache.upkeep.prune(args.max_bytes), "evicted")


def run_clear(args):
    _refuse_info_options(args)
    return _remove(lambda cache: cache.upkeep.clear(), "removed")

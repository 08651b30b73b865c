"""`opkit cache [info|prune|clear]`: the compiled-module cache at config.compiledir (`opkit cache` is info)."""

from __future__ import annotations

import json

from opkit.cli.cache_ops import by_op, human_size, print_by_op
from opkit.cli.errors import BadArguments, CommandFailed
from opkit.cop.store.cache import default_cache
from opkit.cop.store.owner import NotOpkitCacheError, foreign_names


def _refuse_info_options(args):
    """prune and clear print what they removed; --json and --by-op given before them are info's, not theirs."""
    given = [option for option, dest in (("--json", "json"), ("--by-op", "by_op")) if getattr(args, dest, False)]
    if given:
        what = f"{given[0]} is an option" if len(given) == 1 else f"{' and '.join(given)} are options"
        raise BadArguments(f"{what} of `opkit cache` (info), not of `opkit cache {args.action}`")


def run_info(args):
    args.json, args.by_op = getattr(args, "json", False), getattr(args, "by_op", False)
    cache = default_cache()
    info = cache.upkeep.info()
    if args.by_op:
        info["by_op"] = by_op(cache)
        if not args.json:
            return print_by_op(info)
    if args.json:
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

"""`opkit cache info|prune|clear`: the compiled-module cache at config.compiledir."""

from __future__ import annotations

from opkit.cli import whole_number


def add_commands(commands):
    """Add cache (with info, prune and clear) to the `opkit` subcommands."""
    cache = commands.add_parser("cache", help="show, prune or clear the compiled-module cache")
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="where the cache is, how many modules, how big")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(run=run_info)
    prune = actions.add_parser("prune", help="remove leftovers (failed or killed builds, trash, stale files)"
                                                     " and evict least recently used modules")
    prune.add_argument("--max-bytes", type=whole_number("--max-bytes", 0), default=None,
                       help="evict down to this size (default: config.cache_max_bytes)")
    prune.set_defaults(run=run_prune)
    actions.add_parser("clear", help="remove everything in the cache (modules, precompiled headers, leftovers)"
                       ).set_defaults(run=run_clear)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def run_info(args):
    from opkit.cop.cache import default_cache

    info = default_cache().info()
    if args.json:
        import json

        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"root:     {info['root']}")
    print(f"entries:  {info['entries']}")
    print(f"size:     {_size(info['total_bytes'])} (modules: at most {_size(info['max_bytes'])})")
    for kind, size in info["bytes_by_kind"].items():
        if size:
            print(f"  {kind}: {_size(size)}")
    if info["unreadable_dirs"]:
        print(f"  and {info['unreadable_dirs']} unreadable director(ies) not counted;"
              " `opkit cache prune` removes unusable entries")
    return 0


def _report_removed(cache, removed, verb):
    from opkit.cop.cache_owner import foreign_names

    print(f"{verb} {len(removed)} module(s), {_size(sum(entry.size for entry in removed))}")
    left = foreign_names(cache.root) if cache.root.is_dir() else []
    if left:
        shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
        print(f"left {len(left)} item(s) opkit did not make in {cache.root}: {shown}")


def _remove(action, verb):
    """Run the cache's clear or prune; a root that is not opkit's is one error line."""
    from opkit.cli import CommandFailed
    from opkit.cop.cache import default_cache
    from opkit.cop.cache_owner import NotOpkitCacheError

    cache = default_cache()
    try:
        removed = action(cache)
    except NotOpkitCacheError as exc:
        raise CommandFailed(str(exc)) from None
    _report_removed(cache, removed, verb)
    return 0


def run_prune(args):
    return _remove(lambda cache: cache.prune(args.max_bytes), "evicted")


def run_clear(args):
    return _remove(lambda cache: cache.clear(), "removed")

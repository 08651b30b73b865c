"""`opkit cache info --by-op`: the cached modules grouped by the C files (the ops' #section files) they came from.

A module's cache key is its content, so its only record of the ops in it is the `#line` directives
that point each op's C back to its file. Code from `c_code` methods names no file.
"""

from __future__ import annotations

import os
import re

from opkit.cli.listing import c_files_cell, fit_table, listing, load_quietly
from opkit.cop.compiledir.layout import SOURCE

_LINE = re.compile(rb'^#line \d+ "([^"\n]*)"', re.M)
NO_FILE = "(C from c_code methods)"


def human_size(n: int) -> str:
    """Return `n` bytes as B, KiB, MiB or GiB."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _files_of(entry_path: str) -> list[str]:
    """Return the #section files a cached module's source names, or [NO_FILE] if it names none."""
    try:
        with open(os.path.join(entry_path, SOURCE), "rb") as handle:
            text = handle.read()
    except OSError:
        return ["(source not kept)"]
    files = {os.fsdecode(name) for name in _LINE.findall(text)}
    files = sorted(name for name in files if os.path.isabs(name))  # the module's own name is relative
    return files or [NO_FILE]


def _ops_by_file() -> dict[str, list[str]]:
    """Return, for each C file of an installed op, the names it is registered under."""
    names: dict[str, list[str]] = {}
    for row in listing(load_quietly())["ops"]:
        for path in row["c_files"]:
            names.setdefault(os.path.realpath(path), []).append(row["name"])
    return names


def by_op(cache) -> list[dict]:
    """Return one row per C file, or per group of files always compiled together (an op's several files): the ops
    registered with them, how many cached modules were generated from them, their bytes and last use."""
    ops = _ops_by_file()
    entries_of: dict[str, list] = {}
    for entry in cache.upkeep.entries():
        for path in _files_of(str(entry.path)):
            entries_of.setdefault(path, []).append(entry)
    groups: dict[tuple, list[str]] = {}
    for path, entries in entries_of.items():
        groups.setdefault(tuple(sorted(entry.key for entry in entries)), []).append(path)
    rows = []
    for paths in groups.values():
        entries = entries_of[paths[0]]
        names = list(dict.fromkeys(name for path in paths for name in ops.get(os.path.realpath(path), [])))
        rows.append({"c_files": sorted(paths), "ops": names, "modules": len(entries),
                     "bytes": sum(entry.size for entry in entries),
                     "last_used": max((entry.last_used for entry in entries if entry.last_used), default=None)})
    return sorted(rows, key=lambda row: (-row["bytes"], row["c_files"]))


def _names(ops: list[str]) -> str:
    if not ops:
        return "-"
    return ", ".join(ops[:3]) + (f" and {len(ops) - 3} more" if len(ops) > 3 else "")


def print_by_op(info) -> int:
    """Print the rows of by_op() as a table fitting the terminal; return 0."""
    print(f"root:     {info['root']}")
    print(f"entries:  {info['entries']} ({human_size(info['bytes_by_kind']['modules'])}); a module of several ops counts "
          f"in each of their rows (`--json` lists every file)\n")
    table = [("OPS", "MODULES", "SIZE", "C FILES")]
    table += [(_names(row["ops"]), str(row["modules"]), human_size(row["bytes"]), c_files_cell(row["c_files"]))
              for row in info["by_op"]]
    for line in fit_table(table):
        print(line)
    if not info["by_op"]:
        print("(no cached modules)")
    return 0

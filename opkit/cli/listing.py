"""`opkit list`: the ops of installed op packages, their packages and C files; the table printing other
commands share."""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings

from opkit.plugins.manager import PluginLoadWarning, load_plugins
from opkit.plugins.registry import ops, types


def load_quietly():
    """Load the plugins without warnings: `opkit list` reports broken plugins itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        return load_plugins()


BUILTIN_PLUGIN = "opkit.plugins.builtin"  # the entry point of opkit's own ops


def listing(state) -> dict:
    """Return `opkit list --json`: every op and type registration, and every plugin with its status."""
    def rows(table, registry):
        return [dict(registry.describe(r), conflict=len(regs) > 1, builtin=r.record.value == BUILTIN_PLUGIN)
                for name, regs in sorted(table.items()) for r in regs]

    plugins = [{"name": r.name, "distribution": r.distribution, "version": r.version, "module": r.value,
                "status": r.status, "error": r.error, "location": r.location, "warnings": list(r.warnings)}
               for r in state.plugins]
    return {"ops": rows(state.ops, ops), "types": rows(state.types, types), "plugins": plugins}


def run_list(args):
    data = listing(load_quietly())
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    shown = [row for row in data["ops"] if args.builtins or not row["builtin"]]
    table = [("OP", "DISTRIBUTION", "VERSION", "C FILES")]
    for row in shown:
        name = f"{row['distribution']}:{row['name']} (conflict)" if row["conflict"] else row["name"]
        table.append((name, row["distribution"], row["version"], c_files_cell(row["c_files"])))
    if len(table) > 1:
        for line in fit_table(table):
            print(line)
    builtins = [row for row in data["ops"] if row["builtin"]]
    if not any(not row["builtin"] for row in data["ops"]):
        print("no op package installed (`opkit new NAME` makes one)")
    if builtins and not args.builtins:
        print(f"{'' if len(table) == 1 else chr(10)}({len(builtins)} built-in ops of {builtins[0]['distribution']} "
              f"not shown: `opkit list --builtins`)")
    for status in ("broken", "disabled"):
        plugins = [p for p in data["plugins"] if p["status"] == status]
        if plugins:
            print(f"\n{status.capitalize()} plugins:")
        for plugin in plugins:
            detail = f": {plugin['error']}" if plugin["error"] else " (OPKIT_DISABLE_PLUGINS)"
            print(f"  {plugin['name']} ({plugin['distribution']} {plugin['version']}){detail}")
    return 0


def c_files_cell(paths) -> str:
    """Return the C FILES cell: the first file, and how many more (`--json` lists them all)."""
    if not paths:
        return "-"
    return paths[0] + (f" (+{len(paths) - 1} more)" if len(paths) > 1 else "")


def terminal_width() -> int | None:
    """Return the width to fit rows to: the terminal's (or $COLUMNS), or None when output goes to a pipe or file."""
    if not os.environ.get("COLUMNS") and not sys.stdout.isatty():
        return None  # a pipe or a file gets whole rows, for grep and scripts
    return max(40, shutil.get_terminal_size().columns)


def fit_table(rows, width=None) -> list[str]:
    """Return `rows` as aligned lines; the last column (a path) is cut from the left to fit the terminal's width."""
    width = terminal_width() if width is None else width
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        head = "  ".join(cell.ljust(size) for cell, size in zip(row, widths)) + "  "
        last = row[-1]
        if width is not None and len(head) + len(last) > width:
            room = max(width - len(head), 8)
            last = "..." + last[len(last) - room + 3:] if len(last) > room else last
            if len(head) + len(last) > width:  # the first columns alone are too wide
                line = head + last
                last, head = "", line[:width - 3] + "..."
        lines.append((head + last).rstrip())
    return lines

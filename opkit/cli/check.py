"""`opkit check FILE.c...`: lint `#section` C files like a compiler would, one `file:line:` per problem."""

from __future__ import annotations

import os
import sys


def add_commands(commands):
    """Add check to the `opkit` subcommands."""
    check = commands.add_parser("check", help="lint #section C files (tags, stray code, macros, return)")
    check.add_argument("files", metavar="FILE.c", nargs="+", help="C files split by #section lines")
    check.add_argument("--strict", action="store_true", help="exit with status 1 on warnings too")
    check.add_argument("--json", action="store_true", help="print the problems as JSON")
    check.set_defaults(run=run_check)


def run_check(args):
    from opkit.cop.lint import check_files

    # Report each file the way the user spelt it, so editors can jump to `file:line:`.
    spelt = {os.path.abspath(path): path for path in args.files}
    diagnostics = check_files(args.files)
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    if args.json:
        import json

        print(json.dumps({"files": list(args.files), "errors": errors, "warnings": warnings, "diagnostics": [
            {"path": spelt.get(d.path, d.path), "line": d.line, "severity": d.severity, "message": d.message}
            for d in diagnostics]}, indent=2))
        return 1 if errors or (args.strict and warnings) else 0
    for diagnostic in diagnostics:
        where = spelt.get(diagnostic.path, diagnostic.path)
        line = "" if diagnostic.line is None else f"{diagnostic.line}:"
        print(f"{where}:{line} {diagnostic.severity}: {diagnostic.message}")
    print(f"{len(args.files)} file(s) checked: {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if errors or (args.strict and warnings) else 0

"""`opkit check OP|FILE|DIRECTORY...`: lint `#section` C files like a compiler would, one `file:line:` per problem."""

from __future__ import annotations

import json
import os
import re
import sys

from opkit.cli.errors import BadArguments, CommandFailed
from opkit.cli.listing import load_quietly
from opkit.cop.kernels import check_kernels
from opkit.cop.source.lint import check_files
from opkit.cop.toolchain.nvrtc import NvrtcNotFoundError
from opkit.plugins.registry import BrokenPluginError, UnknownNameError, ops


# Directories a search for .c and .cu files never enters: build output, environments, caches, version control.
_SKIPPED_DIRS = {"build", "dist", "node_modules", "__pycache__", "site-packages"}


def _c_files_in(directory: str) -> list[str]:
    """Return the .c and .cu (CUDA kernels) files under `directory`, sorted, skipping hidden folders, venvs and
    build output."""
    found = []
    for parent, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                         and not os.path.isfile(os.path.join(parent, d, "pyvenv.cfg")))
        found += [os.path.join(parent, name) for name in sorted(files) if name.endswith((".c", ".cu"))]
    return found


def resolve_targets(targets) -> list[str]:
    """Return the C files that OP names, FILE paths and DIRECTORY paths stand for, in order; raise BadArguments."""
    files = []
    for target in targets:
        if os.path.isdir(target):
            found = _c_files_in(target)
            if not found:
                raise BadArguments(f"{target}: a directory with no .c or .cu file in it (hidden folders, venvs and build "
                                   f"output are skipped)")
            files += found
        elif os.path.exists(target) or os.sep in target or target.endswith((".c", ".h", ".cpp", ".cu")):
            files.append(target)  # a missing file is reported by the lint as file:: error
        else:
            files += _op_files(target)
    return list(dict.fromkeys(files))


def _op_files(name: str) -> list[str]:
    """Return the C files of the installed op `name`; BadArguments if no op and no file has that name."""
    load_quietly()
    try:
        paths = ops.info(name)["c_files"]
    except BrokenPluginError as exc:  # e.g. a bad #section tag: the failure says where
        raise CommandFailed(str(exc)) from None
    except UnknownNameError as exc:
        raise BadArguments(f"{name!r} is neither a file, a directory nor an installed op: {exc}") from None
    if not paths:
        raise BadArguments(f"the op {name!r} has no C file to check (its C, if any, comes from c_code methods)")
    return paths


def _compiled_kernels(files, diagnostics) -> list:
    """Return what NVRTC finds in the files' kernels sections (lines the lint flagged aside); notes NVRTC's absence."""
    with_kernels = [path for path in files if _has_kernels_section(path)]
    if not with_kernels:
        return []
    flagged = {(d.path, d.line) for d in diagnostics if d.severity == "error"}
    found = []
    for path in with_kernels:
        try:
            found += [d for d in check_kernels(path) if (d.path, d.line) not in flagged]
        except NvrtcNotFoundError:
            print("note: NVRTC is not installed: kernels sections were linted, not compiled "
                  "(pip install opkit-sdk[cuda])", file=sys.stderr)
            break
    return found


def _has_kernels_section(path) -> bool:
    """Return True if the file has a `#section kernels` line (read cheaply; the lint reports unreadable files)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return re.search(r"^[ \t]*#[ \t]*section[ \t]+kernels\b", handle.read(), re.M) is not None
    except OSError:
        return False


def run_check(args):
    files = resolve_targets(args.files)
    # Report each file the way the user spelt it (or found it), so editors can jump to `file:line:`.
    spelt = {os.path.abspath(path): path for path in files}
    diagnostics = check_files(files)
    order = {os.path.abspath(path): index for index, path in enumerate(files)}
    diagnostics = sorted(diagnostics + _compiled_kernels(files, diagnostics),
                         key=lambda d: (order.get(d.path, len(order)), d.line or 0))
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    if args.json:
        print(json.dumps({"files": files, "errors": errors, "warnings": warnings, "diagnostics": [
            {"path": spelt.get(d.path, d.path), "line": d.line, "severity": d.severity, "message": d.message}
            for d in diagnostics]}, indent=2))
        return 1 if errors or (args.strict and warnings) else 0
    for diagnostic in diagnostics:
        where = spelt.get(diagnostic.path, diagnostic.path)
        line = "" if diagnostic.line is None else f"{diagnostic.line}:"
        print(f"{where}:{line} {diagnostic.severity}: {diagnostic.message}")
    print(f"{len(files)} file(s) checked: {errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if errors or (args.strict and warnings) else 0

"""`opkit list`, `info`, `show` and `build`: the installed ops, and the C generated for one of them."""

from __future__ import annotations

import json
import os
import time


def add_commands(commands):
    """Add list, info, show and build to the `opkit` subcommands."""
    listing = commands.add_parser("list", help="list the ops of installed op packages, their packages and C files")
    listing.add_argument("--builtins", action="store_true", help="list opkit's own ops (add, sum, ...) too")
    listing.add_argument("--json", action="store_true",
                         help="print JSON: every op (built-ins too, each with a 'builtin' field), type and plugin")
    listing.set_defaults(run=run_list)
    info = commands.add_parser("info", help="show where an op comes from")
    info.add_argument("op", metavar="OP", help="op name, or DIST:NAME")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(run=run_info)
    for name, run, text in (("show", run_show, "print the generated C of one node of OP"),
                            ("build", run_build, "compile one node of OP into the cache (--into: and into a package)")):
        parser = commands.add_parser(name, help=text)
        parser.add_argument("op", metavar="OP", help="op name, DIST:NAME, or a #section C file (the installed op "
                                                     "that uses it; else the file alone: tensor inputs as --dtypes "
                                                     "and --ndims say, one output of their common dtype)")
        parser.add_argument("--dtypes", required=True,
                            help="input dtypes, e.g. float64,float64; a registered type name "
                                 "(dvector, double, ...) is used as that type")
        parser.add_argument("--ndims", help="input ranks, e.g. 1,0 (default: 1 for every tensor input)")
        parser.set_defaults(run=run)
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


def load_quietly():
    """Load the plugins without warnings: `opkit list` reports broken plugins itself."""
    import warnings

    from opkit.plugins.manager import PluginLoadWarning, load_plugins

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        return load_plugins()


BUILTIN_PLUGIN = "opkit.plugins.builtin"  # the entry point of opkit's own ops


def listing(state) -> dict:
    """Return `opkit list --json`: every op and type registration, and every plugin with its status."""
    from opkit.plugins.registry import ops, types

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
    import shutil
    import sys

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


def _installed_op(name: str):
    """Return the op registered as `name`; an unknown name is a usage error (as argparse's invalid choice)."""
    import opkit
    from opkit.cli import BadArguments, CommandFailed
    from opkit.plugins.registry import BrokenPluginError, UnknownNameError

    load_quietly()  # a broken plugin's failure is the error below when it provides `name`, not a warning too
    try:
        return opkit.ops[name]
    except BrokenPluginError as exc:  # the name is right; its package is what needs fixing
        raise CommandFailed(str(exc)) from None
    except UnknownNameError as exc:
        raise BadArguments(str(exc)) from None


def run_info(args):
    import opkit

    op = _installed_op(args.op)
    info = opkit.ops.info(args.op)
    doc = (type(op).__doc__ or "").strip().splitlines()
    info["summary"] = doc[0] if doc else ""
    info["props"] = {name: repr(getattr(op, name)) for name in getattr(op, "__props__", ())}
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    width = max(map(len, info))
    for key, value in info.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        print(f"{key.ljust(width)}  {shown}")
    return 0


def _input_variable(token: str, ndim: int | None, index: int):
    """Return a variable for one --dtypes entry: a registered type by name, else a tensor of that dtype."""
    import numpy as np

    import opkit.tensor as ot
    from opkit.cli import BadArguments
    from opkit.plugins.registry import types

    name = f"x{index}"
    if token in types:
        return types[token](name)
    try:
        dtype = str(np.dtype(token))
    except TypeError:
        raise BadArguments(f"--dtypes: {token!r} is neither a numpy dtype nor a registered type\n"
                            f"registered types: {', '.join(types)}") from None
    return ot.tensor(dtype, shape=(None,) * (1 if ndim is None else ndim), name=name)


def _arity(make_node) -> int | None:
    """Return how many inputs make_node takes, or None if it takes any number."""
    import inspect

    try:
        parameters = inspect.signature(make_node).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in parameters)


def make_node(op_name: str, dtypes: str, ndims: str | None):
    """Return OP's Apply node on fresh inputs of `dtypes` (and `ndims`), or say how to fix the call."""
    from opkit.cli import BadArguments
    from opkit.cli.file_op import names_a_file, op_for_file

    op = op_for_file(op_name) if names_a_file(op_name) else _installed_op(op_name)
    tokens = [t.strip() for t in dtypes.split(",") if t.strip()]
    if not tokens:
        raise BadArguments(f"--dtypes {dtypes!r} names no dtype; give one per input, e.g. --dtypes float64,float64")
    ranks = [None] * len(tokens)
    if ndims:
        try:
            ranks = [int(r) for r in ndims.split(",")]
        except ValueError:
            raise BadArguments(f"--ndims must be integers separated by commas, got {ndims!r}") from None
        if len(ranks) != len(tokens):
            raise BadArguments(f"--ndims gives {len(ranks)} ranks for {len(tokens)} --dtypes")
        if any(rank < 0 for rank in ranks):
            raise BadArguments(f"--ndims {ndims}: a rank cannot be negative")
    arity = _arity(op.make_node)
    if arity is not None and arity != len(tokens):
        raise BadArguments(f"{op_name} takes {arity} input(s); --dtypes gives {len(tokens)} ({dtypes})")
    inputs = [_input_variable(token, rank, i) for i, (token, rank) in enumerate(zip(tokens, ranks))]
    try:
        return op.make_node(*inputs)
    except (TypeError, ValueError, AssertionError) as exc:
        described = ", ".join(str(v.type) for v in inputs)
        hint = "" if ndims else _ranks_hint(op, tokens)
        raise BadArguments(f"{op_name}.make_node rejected inputs ({described}): {exc}{hint}") from None


def _ranks_hint(op, tokens) -> str:
    """Return a hint to pass --ndims when make_node accepts these dtypes at other ranks (0, 1 or 2), else ''."""
    import itertools

    if len(tokens) > 4:
        return ""
    for ranks in itertools.product((1, 0, 2), repeat=len(tokens)):
        try:
            op.make_node(*[_input_variable(token, rank, i) for i, (token, rank) in enumerate(zip(tokens, ranks))])
        except Exception:  # noqa: BLE001 - any refusal: try the next ranks
            continue
        if any(rank != 1 for rank in ranks):
            return f"\nthe op takes these dtypes at other ranks: pass --ndims {','.join(map(str, ranks))}"
    return ""


# How `opkit build` describes its module in the cache's meta.json (the key is the module's content).
_ONE_NODE_DESCRIPTION = "graph of 1 node(s)"


def _region_and_source(args):
    from opkit.cli import CommandFailed
    from opkit.cop.generate.cinterface import op_has_c
    from opkit.cop.generate.codegen import render_module
    from opkit.cop.generate.region import Region
    from opkit.core.type import MethodNotDefined

    node = make_node(args.op, args.dtypes, args.ndims)
    if not op_has_c(node):
        raise CommandFailed(f"{args.op} has no C code for {node} (or one of its types has no C interface); "
                            f"it runs in Python (perform) only")
    region = Region.from_nodes([node], lambda variable: True)
    try:
        return region, render_module(region)
    except (MethodNotDefined, NotImplementedError) as exc:
        raise CommandFailed(f"{args.op} has no C code for these inputs ({exc}); it runs in Python only") from None


def run_show(args):
    from opkit.cli.build_gpu import for_gpu_node

    with for_gpu_node(make_node(args.op, args.dtypes, args.ndims), args.arch):
        _, generated = _region_and_source(args)
    print(generated.with_name(f"opkit_{_module_suffix(args.op)}"), end="")
    return 0


def _module_suffix(op: str) -> str:
    """Return the part of the shown module's name that OP gives: an op's name, or a file's stem."""
    import re

    from opkit.cli.file_op import names_a_file

    name = os.path.splitext(os.path.basename(op))[0] if names_a_file(op) else op
    return re.sub(r"\W", "_", name)


def run_build(args):
    from opkit.cli.build_gpu import device_arch_of, run_build_archs

    if args.arch is None:  # a GPU op is built for this machine's GPU
        args.arch = device_arch_of(make_node(args.op, args.dtypes, args.ndims))
    if args.arch is not None:
        return run_build_archs(args, make_node, _check_into, build_host)
    return build_host(args)


def build_host(args):
    """Build the node's host module (and with --into, ship it): `opkit build` without --arch, or for one arch."""
    if args.into is None:
        return _build_node(args)
    node = make_node(args.op, args.dtypes, args.ndims)
    from opkit.cli.file_op import SectionFileOp

    if isinstance(node.op, SectionFileOp):
        from opkit.cli import BadArguments

        raise BadArguments(f"--into ships the module of an installed op, and no installed op uses {args.op}: "
                           "install its package, then name the op")
    _check_into(args, node)  # before spending a compile on it
    from opkit.cli import CommandFailed
    from opkit.config import config
    from opkit.cop.store.shipped import ship_march, ship_refusal

    refusal = ship_refusal()
    if refusal is not None:
        raise CommandFailed(f"--into {args.into}: {refusal}")

    # A module meant to ship is built for a named CPU baseline, never -march=native (see ship_march).
    march = ship_march()
    if march != config.march:
        print(f"building for the CPU baseline {march or 'of the compiler'} (config.march={config.march!r} is this "
              "host's own CPU; set OPKIT_FLAGS=march=... to choose another baseline)")
    # Shipped modules are always built with OpenMP (see shipping_flags), whatever this host's cores.
    with config.change_flags(march=march, openmp=True):
        _require_openmp()
        return _build_node(args)


def _require_openmp():
    """Refuse to build a module to ship with a compiler that cannot compile OpenMP (-fopenmp)."""
    from opkit.cli import CommandFailed
    from opkit.cop.toolchain.extension import modules_use_openmp
    from opkit.errors import CompileError

    try:
        usable = modules_use_openmp()
    except CompileError:
        return  # no compiler at all: the build itself says so
    if not usable:
        raise CommandFailed("modules meant to ship are built with OpenMP (-fopenmp), so that they run on any machine "
                            "whatever its cores, and this compiler cannot link -fopenmp\n"
                            "fix: install the compiler's OpenMP runtime (libgomp, libomp), or choose a compiler "
                            "that has one: OPKIT_FLAGS=cxx=...")


def _build_node(args):
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.toolchain.identity import region_key
    from opkit.cop.compile import build_region
    from opkit.cop.store.cache import default_cache

    region, generated = _region_and_source(args)
    entry = default_cache().entry_dir(region_key(collect_module(region))) if generated.versioned else None
    already = entry is not None and os.path.isdir(entry)
    started = time.perf_counter()
    module = build_region(region, _ONE_NODE_DESCRIPTION)
    elapsed = time.perf_counter() - started
    described = f"{args.op} ({', '.join(str(v.type) for v in region.inputs)})"
    print(f"{described} was already built: nothing to do" if already else f"built {described} in {elapsed:.2f} s")
    print(f"module: {module.__file__}")
    if generated.versioned:
        print(f"cache entry: {entry}")
    else:
        print("not cached across processes: the op or a type declares no c_code_cache_version")
    if args.into is not None:
        shipped = _ship(args, region, module)
        print(f"shipped module: {shipped}")
    return 0


def _check_into(args, node):
    """Return --into as a Path if it is the source directory of the package defining `node`'s op, else raise."""
    import pathlib

    from opkit.cli import BadArguments
    from opkit.cop.store.shipped import SHIPPED_DIR

    into = pathlib.Path(args.into)
    package = type(node.op).__module__.partition(".")[0]
    if not (into / "__init__.py").is_file() or into.resolve().name != package:
        raise BadArguments(f"--into {args.into}: not the source directory of the package {package!r} that defines "
                           f"{args.op} (the directory holding {package}/__init__.py, e.g. src/{package})\n"
                           f"opkit looks for shipped modules in {package}/{SHIPPED_DIR}/ of the installed package")
    return into


def _ship(args, region, module):
    """Store the built module in the op package at --into; return its directory there."""
    from opkit.cli import CommandFailed
    from opkit.cop.generate.codegen import collect_module
    from opkit.cop.store.shipped import ship_module

    node = region.nodes[0]
    into = _check_into(args, node)
    parts = collect_module(region)
    if not parts.versioned:
        raise CommandFailed(f"{args.op} cannot be shipped: the op or one of its types declares no "
                            "c_code_cache_version, so its module has no stable identity")
    description = {"op": args.op, "op_class": f"{type(node.op).__module__}.{type(node.op).__qualname__}",
                   "dtypes": [getattr(v.type, "dtype", str(v.type)) for v in node.inputs],
                   "ndims": [getattr(v.type, "ndim", None) for v in node.inputs],
                   "signature": ", ".join(str(v.type) for v in node.inputs), **getattr(args, "ship_extra", {})}
    return ship_module(parts, module, into, description)

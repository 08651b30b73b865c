"""`opkit info`, `show` and `build`: where an installed op comes from, and the C generated for one of its nodes."""

from __future__ import annotations

import inspect
import itertools
import json
import os
import pathlib
import re
import time

import numpy as np

import opkit.tensor as ot
from opkit.cli.build_gpu import device_arch_of, for_gpu_node, run_build_archs
from opkit.cli.errors import BadArguments, CommandFailed
from opkit.cli.file_op import SectionFileOp, names_a_file, op_for_file
from opkit.cli.listing import load_quietly
from opkit.config import config
from opkit.cop.compile import build_region
from opkit.cop.generate.cinterface import op_has_c
from opkit.cop.generate.codegen import collect_module, render_module
from opkit.cop.generate.region import Region
from opkit.cop.generate.target import current_target
from opkit.cop.store.cache import default_cache
from opkit.cop.store.shipped import SHIPPED_DIR, ship_march, ship_module, ship_refusal
from opkit.cop.toolchain.extension import modules_use_openmp
from opkit.cop.toolchain.identity import region_key
from opkit.core.type import MethodNotDefined
from opkit.errors import CompileError
from opkit.plugins.registry import BrokenPluginError, UnknownNameError, ops, types


def _installed_op(name: str):
    """Return the op registered as `name`; an unknown name is a usage error (as argparse's invalid choice)."""
    load_quietly()  # a broken plugin's failure is the error below when it provides `name`, not a warning too
    try:
        return ops[name]
    except BrokenPluginError as exc:  # the name is right; its package is what needs fixing
        raise CommandFailed(str(exc)) from None
    except UnknownNameError as exc:
        raise BadArguments(str(exc)) from None


def run_info(args):
    op = _installed_op(args.op)
    info = ops.info(args.op)
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
    try:
        parameters = inspect.signature(make_node).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in parameters)


def make_node(op_name: str, dtypes: str, ndims: str | None):
    """Return OP's Apply node on fresh inputs of `dtypes` (and `ndims`), or say how to fix the call."""
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
    node = make_node(args.op, args.dtypes, args.ndims)
    if not op_has_c(node):
        raise CommandFailed(f"{args.op} has no C code for {node} (or one of its types has no C interface); "
                            f"it runs in Python (perform) only")
    # The device the command builds for (`--arch`: cuda, opkit.cli.build_gpu.for_gpu_node), as its node was made
    region = Region.of_node(node, current_target())
    try:
        return region, render_module(region)
    except (MethodNotDefined, NotImplementedError) as exc:
        raise CommandFailed(f"{args.op} has no C code for these inputs ({exc}); it runs in Python only") from None


def run_show(args):
    with for_gpu_node(make_node(args.op, args.dtypes, args.ndims), args.arch):
        _, generated = _region_and_source(args)
    print(generated.with_name(f"opkit_{_module_suffix(args.op)}"), end="")
    return 0


def _module_suffix(op: str) -> str:
    """Return the part of the shown module's name that OP gives: an op's name, or a file's stem."""
    name = os.path.splitext(os.path.basename(op))[0] if names_a_file(op) else op
    return re.sub(r"\W", "_", name)


def run_build(args):
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
    if isinstance(node.op, SectionFileOp):
        raise BadArguments(f"--into ships the module of an installed op, and no installed op uses {args.op}: "
                           "install its package, then name the op")
    _check_into(args, node)  # before spending a compile on it
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
    into = pathlib.Path(args.into)
    package = type(node.op).__module__.partition(".")[0]
    if not (into / "__init__.py").is_file() or into.resolve().name != package:
        raise BadArguments(f"--into {args.into}: not the source directory of the package {package!r} that defines "
                           f"{args.op} (the directory holding {package}/__init__.py, e.g. src/{package})\n"
                           f"opkit looks for shipped modules in {package}/{SHIPPED_DIR}/ of the installed package")
    return into


def _ship(args, region, module):
    """Store the built module in the op package at --into; return its directory there."""
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

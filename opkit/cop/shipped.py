"""Shipped modules: compiled modules that an op package carries in its wheel, for machines without a compiler.

`opkit build OP --dtypes ... --into PACKAGE_DIR` stores a one-node module in
`PACKAGE_DIR/_opkit_modules/<key>/` (the shared object and a meta.json). At run
time a region whose ops come from a package holding such a directory is looked
up there before the user cache (see opkit.cop.compile.compile_region).

A shipped module's key leaves out the compiler and every path (the machine
running it may have no compiler, and installs the package elsewhere), and keeps
what decides whether it can run here: the op's content (the module template,
every code string of its ops and types, the headers they include), the Python
ABI, the numpy C-API version, the CPU baseline (config.march) and the build
flags. Any difference gives another key, so a mismatch is never loaded.
OpenMP is not part of it: a module's thread count is read at run time, so a
module built with OpenMP runs on one core, and one built without it runs
anywhere; a machine with one core (where config.openmp is off by default)
finds the modules a many-core build shipped.

A shipped entry that cannot serve (damaged, built for another machine, or
from other code) is never loaded silently in its place: `entry_problem` says
why, find_shipped warns once for the entry it skips, and MissingModuleError and
`opkit doctor` say what each shipped module was built for and why it does not fit.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform
import re
import shutil
import sys
import warnings

from opkit.config import config
from opkit.cop.build import extension_suffix
from opkit.cop.cache import cache_key, module_events
from opkit.cop.codegen import template_text
from opkit.cop.compile import local_headers
from opkit.cop.compiler import numpy_c_api_version, python_abi
from opkit.cop.load import load_module

SHIPPED_DIR = "_opkit_modules"
SHIPPED_FORMAT = "opkit-shipped-1"
META = "meta.json"
# `#line 12 "/abs/path/op.c"` names where the source was when the module was built: keep the file name only.
_LINE_PATH = re.compile(r'(#line \d+ ")([^"\n]*/)?([^"\n/]*")')

_package_dirs: dict[str, pathlib.Path | None] = {}  # top-level package -> its shipped directory, if any
_loaded: dict[str, object] = {}  # shipped key -> loaded module
_warned: set[str] = set()  # entries whose problem was reported once in this process


# A module meant to ship is built for a named baseline, never for the building host's own CPU
# (`-march=native` would be an illegal instruction on an older target): config.march when it names
# one, else this default for the machine.
DEFAULT_SHIP_MARCH = {"x86_64": "x86-64-v2", "AMD64": "x86-64-v2", "aarch64": "armv8-a", "arm64": "armv8-a"}
# What /proc/cpuinfo must list for the x86-64 levels (the psABI's micro-architecture levels).
_X86_LEVELS = {
    "x86-64": (),
    "x86-64-v2": ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"),
    "x86-64-v3": ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", "avx", "avx2", "bmi1", "bmi2", "f16c",
                  "fma", "abm", "movbe", "xsave"),
    "x86-64-v4": ("cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", "avx", "avx2", "bmi1", "bmi2", "f16c",
                  "fma", "abm", "movbe", "xsave", "avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"),
}


def ship_march() -> str:
    """Return the -march= baseline shipped modules are built for and looked up by ('' : the compiler's default)."""
    march = getattr(config, "march", "") or ""
    if march != "native":
        return march
    return DEFAULT_SHIP_MARCH.get(platform.machine(), "")


def cpu_runs(march: str, cpuinfo: str | None = None) -> bool:
    """Return False if this CPU is known to lack what `march` needs (an x86-64 level /proc/cpuinfo does not meet)."""
    return not missing_cpu_flags(march, cpuinfo)


def missing_cpu_flags(march: str, cpuinfo: str | None = None) -> list[str]:
    """Return the CPU flags `march` needs that /proc/cpuinfo does not list ([] where opkit cannot tell)."""
    needed = _X86_LEVELS.get(march)
    if not needed:
        return []  # the base level, or a name opkit cannot check: the user who named it vouches for it
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace") if cpuinfo is None \
            else cpuinfo
    except OSError:
        return []  # not Linux: no way to tell here
    flags = set(next((line.partition(":")[2].split() for line in text.splitlines() if line.startswith("flags")), ()))
    return [flag for flag in needed if flags and flag not in flags]


def cpu_baseline() -> str:
    """Return the CPU a shipped module is built for: the machine and its baseline (see ship_march)."""
    return f"{platform.machine()} march={ship_march() or 'default'}"


def shipping_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the (compile, link) flags of a shipped module's key: known without asking a compiler.

    build_flags() probes the compiler (for OpenMP); a machine without one must
    compute the same key, and OpenMP does not decide whether a module runs here
    (see the module docstring), so -fopenmp is left out.
    """
    import shlex

    from opkit.cop.build import BASE_COMPILE_ARGS
    march = ship_march()
    compile_args = list(BASE_COMPILE_ARGS) + ([f"-march={march}"] if march else [])
    link_args = []
    cflags = shlex.split(config.cflags)
    return tuple(compile_args + cflags), tuple(link_args + cflags)


def machine_identity() -> dict:
    """Return what a shipped module must have been built for to load here."""
    return {"python_abi": python_abi(), "numpy_c_api": numpy_c_api_version(), "cpu": cpu_baseline(),
            "platform": sys.platform}


def shipped_key(parts) -> str:
    """Return the key of a region's shipped module from the parts it renders from (see the module docstring)."""
    content = _LINE_PATH.sub(r"\1\3", template_text() + "\0" + parts.content())
    headers = [text.partition("\n")[2] for text in local_headers(parts.code_text(), parts.include_dirs)]
    identity = machine_identity()
    compile_args, link_args = shipping_flags()
    return cache_key(SHIPPED_FORMAT, content, *headers, *(f"{k}={v}" for k, v in sorted(identity.items())),
                     repr(compile_args), repr(link_args), repr(list(parts.libraries)), repr(list(parts.compile_args)))


def shipped_dir(op) -> pathlib.Path | None:
    """Return the shipped-module directory of the package that defines `op`, or None if it has none."""
    package = type(op).__module__.partition(".")[0]
    if package not in _package_dirs:
        module = sys.modules.get(package)
        location = getattr(module, "__file__", None)
        found = None
        if location is not None:
            candidate = pathlib.Path(location).resolve().parent / SHIPPED_DIR
            found = candidate if candidate.is_dir() else None
        _package_dirs[package] = found
    return _package_dirs[package]


def find_shipped(region, parts):
    """Return the shipped module computing `region`, loaded, or None if no installed package ships it.

    An entry stored under the region's key that cannot be used (damaged, or its
    meta disagrees) is skipped with one warning that names its file and why.
    """
    directories = list(dict.fromkeys(d for d in (shipped_dir(node.op) for node in region.nodes) if d is not None))
    if not directories or not cpu_runs(ship_march()):
        return None
    key = shipped_key(parts)
    module = _loaded.get(key)
    if module is None:
        for directory in directories:
            module = _load(directory / key, key)
            if module is not None:
                _loaded[key] = module
                break
    return module


def _load(entry: pathlib.Path, key: str):
    """Load a shipped entry whose meta.json and shared object agree with `key`; None if absent or unusable."""
    if not entry.is_dir():
        return None
    problem = entry_problem(entry, key)
    if problem is None:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        try:
            module = load_module(entry / os.path.basename(meta["so_name"]), meta["module_name"])
        except ImportError as exc:
            problem = f"{entry / os.path.basename(meta['so_name'])} cannot be loaded: {exc}"
        else:
            module_events["shipped"] += 1
            return module
    if str(entry) not in _warned:
        _warned.add(str(entry))
        warnings.warn(f"opkit: the shipped module {entry} is not used: {problem}", RuntimeWarning, stacklevel=2)
    return None


def entry_problem(entry: pathlib.Path, key: str | None = None) -> str | None:
    """Return why the shipped entry `entry` cannot serve this machine, or None if it can.

    Checked: meta.json is opkit's and readable, the shared object is whole (its
    size and SHA-256 as meta.json records them), the machine it was built for
    is this one (Python ABI, numpy C-API, CPU baseline, platform), and, given
    `key`, that it was built from the code the op has here.
    """
    meta_path = entry / META
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"{meta_path} cannot be read ({exc})"
    if not isinstance(meta, dict) or meta.get("format") != SHIPPED_FORMAT:
        return f"{meta_path} is not a meta.json of {SHIPPED_FORMAT}"
    mismatch = machine_mismatch(meta)
    if mismatch:
        return f"built for {built_for(meta)}; {mismatch}"
    so = entry / os.path.basename(str(meta.get("so_name", "")))
    try:
        data = so.read_bytes()
    except OSError as exc:
        return f"{so} cannot be read ({exc.strerror or exc})"
    if len(data) != meta.get("so_size"):
        return f"{so} is damaged: {len(data)} bytes, meta.json says {meta.get('so_size')} (truncated or overwritten)"
    if hashlib.sha256(data).hexdigest() != meta.get("so_sha256"):
        return f"{so} is damaged: its SHA-256 is not the one meta.json records"
    if key is not None and (meta.get("key") != key or entry.name != key):
        return "built from other code or build flags than the op has here (another op version, or other OPKIT_FLAGS)"
    return None


def built_for(meta: dict) -> str:
    """Return what a shipped module was built for, in words (from its meta.json)."""
    return (f"Python {meta.get('python_abi', '?')}, numpy C-API {meta.get('numpy_c_api', '?')}, "
            f"CPU {meta.get('cpu', '?')}, platform {meta.get('platform', '?')}")


def machine_mismatch(meta: dict) -> str | None:
    """Return how this machine differs from the one a shipped module (its meta.json) was built for, or None."""
    here = machine_identity()
    names = {"python_abi": "Python", "numpy_c_api": "numpy C-API", "cpu": "CPU baseline", "platform": "platform"}
    differences = [f"this machine has {names[field]} {here[field]}" for field in names if meta.get(field) != here[field]]
    march = str(meta.get("cpu", "")).rpartition("march=")[2]
    lacking = missing_cpu_flags(march) if str(meta.get("cpu", "")).startswith(platform.machine() + " ") else []
    if lacking:
        differences.append(f"this CPU lacks {' '.join(lacking)}, which {march} needs")
    return ", ".join(differences) or None


def ship_module(parts, module, into, description: dict) -> pathlib.Path:
    """Copy the loaded `module` (built from `parts`) into `into/_opkit_modules/<key>/`; return that directory.

    `description` (the op's registered name, its input dtypes and ranks, its
    signature) goes into meta.json, for `opkit doctor` and for error messages.
    """
    key = shipped_key(parts)
    entry = pathlib.Path(into) / SHIPPED_DIR / key
    source = pathlib.Path(module.__file__)
    data = source.read_bytes()
    so_name = f"{module.__name__}{extension_suffix()}"
    meta = {"format": SHIPPED_FORMAT, "key": key, "module_name": module.__name__, "so_name": so_name,
            "so_size": len(data), "so_sha256": hashlib.sha256(data).hexdigest(), **machine_identity(),
            **description}
    staging = entry.with_name(f".{key}.{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    (staging / so_name).write_bytes(data)
    (staging / META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(entry, ignore_errors=True)
    os.rename(staging, entry)
    return entry


def shipped_entries(directory: pathlib.Path | None) -> list[dict]:
    """Return the meta.json of every module in a shipped directory (those that can be read).

    Each carries its entry's directory under "entry" (not in the file itself).
    """
    entries = []
    for meta_path in sorted(directory.glob(f"*/{META}")) if directory is not None else []:
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict):
            entries.append({**meta, "entry": meta_path.parent})
    return entries


def describe_entries(op, signature: str | None = None, key: str | None = None) -> tuple[list[str], list[str]]:
    """Return (signatures that serve here, lines for the others: what each was built for and why it does not fit).

    `signature`, `key`: the signature asked for and its shipped key here, if
    known: an entry of that signature under another key was built from other code.
    """
    op_class = f"{type(op).__module__}.{type(op).__qualname__}"
    fitting, others = set(), []
    for meta in shipped_entries(shipped_dir(op)):
        if meta.get("op_class") != op_class:
            continue
        entry = meta["entry"]
        problem = entry_problem(entry)
        if problem is None and key is not None and meta.get("signature") == signature and entry.name != key:
            problem = "built from other code or build flags than the op has here"
        if problem is None:
            fitting.add(meta.get("signature", "?"))
        else:
            others.append(f"({meta.get('signature', '?')}) in {entry}: {problem}")
    return sorted(fitting), others


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

from opkit.config import config
from opkit.cop.build import build_flags, extension_suffix
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


def cpu_baseline() -> str:
    """Return the CPU a module is built for: the machine and config.march (the compiler's default if unset)."""
    return f"{platform.machine()} march={getattr(config, 'march', None) or 'default'}"


def machine_identity() -> dict:
    """Return what a shipped module must have been built for to load here."""
    return {"python_abi": python_abi(), "numpy_c_api": numpy_c_api_version(), "cpu": cpu_baseline(),
            "platform": sys.platform}


def shipped_key(parts) -> str:
    """Return the key of a region's shipped module from the parts it renders from (see the module docstring)."""
    content = _LINE_PATH.sub(r"\1\3", template_text() + "\0" + parts.content())
    headers = [text.partition("\n")[2] for text in local_headers(parts.code_text(), parts.include_dirs)]
    identity = machine_identity()
    compile_args, link_args = build_flags()
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
    """Return the shipped module computing `region`, loaded, or None if no installed package ships it."""
    directories = list(dict.fromkeys(d for d in (shipped_dir(node.op) for node in region.nodes) if d is not None))
    if not directories:
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
    try:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        so = entry / os.path.basename(meta["so_name"])
        data = so.read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if meta.get("key") != key or meta.get("format") != SHIPPED_FORMAT:
        return None
    if len(data) != meta.get("so_size") or hashlib.sha256(data).hexdigest() != meta.get("so_sha256"):
        return None
    try:
        module = load_module(so, meta["module_name"])
    except (ImportError, KeyError):
        return None
    module_events["shipped"] += 1
    return module


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
    """Return the meta.json of every module in a shipped directory (those that can be read)."""
    entries = []
    for meta_path in sorted(directory.glob(f"*/{META}")) if directory is not None else []:
        try:
            entries.append(json.loads(meta_path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return entries

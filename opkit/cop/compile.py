"""Compile a Region: render its source, key it, and fetch or build it through the cache."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile

from opkit.cop.build import build_extension, build_flags
from opkit.cop.cache import ModuleCache, cache_key, default_cache, module_name_for
from opkit.cop.codegen import failure_notes, render_module
from opkit.cop.compiler import toolchain_fingerprint
from opkit.cop.sanitize import require_runtime
from opkit.cop.signature import index as signature_index
from opkit.cop.signature import region_signature
from opkit.errors import CompileError

_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
_process_cache = None


def local_headers(source, include_dirs):
    """Return the contents of every `#include "..."` header found in include_dirs, recursively."""
    found, pending, seen = [], [(source, None)], set()
    while pending:
        text, here = pending.pop()
        for name in _LOCAL_INCLUDE.findall(text):
            for directory in ([here] if here else []) + list(include_dirs):
                path = os.path.join(directory, name)
                if os.path.isfile(path):
                    real = os.path.realpath(path)
                    if real not in seen:
                        seen.add(real)
                        with open(real, encoding="utf-8", errors="replace") as handle:
                            content = handle.read()
                        found.append(f"{real}\n{content}")
                        pending.append((content, os.path.dirname(real)))
                    break
    return found


def toolchain_parts():
    """Return what a module's identity takes from the toolchain: compiler, ABI, numpy, flags."""
    compile_args, link_args = build_flags()
    return (*toolchain_fingerprint(), *compile_args, *link_args)


def module_key(generated, toolchain=None):
    """Return the cache key of a generated module: its content and the toolchain's."""
    parts = [generated.source, *local_headers(generated.source, generated.include_dirs),
             *(toolchain or toolchain_parts()),
             repr(generated.include_dirs), repr(generated.library_dirs), repr(generated.libraries),
             repr(generated.compile_args)]
    return cache_key(*parts)


def _unversioned_cache():
    """Return a private per-process cache for modules whose code declares no cache version."""
    global _process_cache
    if _process_cache is None:
        root = tempfile.mkdtemp(prefix="opkit-unversioned-")
        atexit.register(shutil.rmtree, root, True)
        _process_cache = ModuleCache(root)
    return _process_cache


def compile_region(region, description=""):
    """Return the loaded extension module computing `region`.

    A region with a signature (see opkit.cop.signature) is found through the
    signature index without rendering; otherwise the source is rendered and keyed.
    """
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    toolchain = toolchain_parts()
    signature = region_signature(region, toolchain)
    cache = default_cache()
    if signature is not None:
        key = signature_index.get(str(cache.root), signature)
        if key is not None:
            module = cache.lookup(key, module_name_for(key))
            if module is not None:
                return module
    try:
        generated = render_module(region, description)
        module, key = compile_generated(generated, description, with_key=True, toolchain=toolchain)
    except CompileError as exc:
        raise _with_context(exc, region)
    if signature is not None and generated.versioned:
        signature_index.put(str(cache.root), signature, key)
    return module


def compile_generated(generated, description="", with_key=False, toolchain=None):
    """Return the loaded module for generated source, from the cache or freshly built."""
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    key = module_key(generated, toolchain)
    cache = default_cache() if generated.versioned else _unversioned_cache()
    name = module_name_for(key)

    def build(tmp_dir):
        return build_extension(generated.with_name(name), name, tmp_dir, include_dirs=generated.include_dirs,
                               library_dirs=generated.library_dirs, libraries=generated.libraries,
                               extra_compile_args=generated.compile_args)

    module = cache.get_or_build(key, build, module_name=name, extra_meta={"description": description[:500]})
    return (module, key) if with_key else module


def _with_context(exc, region):
    """Name the nodes being compiled in the error, keeping its class and attributes."""
    nodes = "\n".join(f"  {node}  [op {type(node.op).__module__}.{type(node.op).__qualname__}]"
                      for node in region.nodes[:8])
    more = f"\n  ... and {len(region.nodes) - 8} more" if len(region.nodes) > 8 else ""
    exc.message = f"{exc.message}\nwhile compiling:\n{nodes}{more}"
    exc.args = (exc.message,)
    return exc


def make_region_runner(region, description=""):
    """Return the C runner of `region`: call it with the region's inputs."""
    module = compile_region(region, description)
    return module.make(failure_notes(region), *[constant.data for constant in region.constants])

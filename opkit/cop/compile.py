"""Compile a Region: collect its code, key it by that content, and fetch or build it through the cache."""

from __future__ import annotations

import functools
import os
import pathlib
import re
import time

from opkit.cop.build import build_extension, build_flags
from opkit.cop.cache import cache_key, default_cache, module_name_for, process_cache
from opkit.cop.codegen import collect_module, failure_notes, region_params, render_parts
from opkit.cop.templates import template_text
from opkit.cop.compiler import find_compiler, toolchain_fingerprint
from opkit.cop.host import native_target
from opkit.cop.sanitize import require_runtime
from opkit.errors import CompileError

# A compile that takes longer than this (seconds) is logged at INFO on the `opkit` logger.
COMPILE_LOG_AFTER = 1.0
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)


@functools.lru_cache(maxsize=64)
def _includes(text):
    """Return the ("quoted", "angled") names `text` includes: a big graph's code is scanned once, not per rebuild."""
    return tuple(_INCLUDE.findall(text))


def local_headers(source, include_dirs):
    """Return the path and content of every header `source` includes from include_dirs, recursively.

    `#include "..."` is looked up beside the including file, then in include_dirs;
    `#include <...>` in include_dirs only (the system's headers belong to the toolchain).
    """
    found, pending, seen = [], [(source, None)], set()
    while pending:
        text, here = pending.pop()
        for quoted, angled in _includes(text):
            directories = ([here] if here and quoted else []) + list(include_dirs)
            for directory in directories:
                path = os.path.join(directory, quoted or angled)
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
    """Return what a module's identity takes from the toolchain: compiler, ABI, numpy, flags.

    With `-march=native`, the CPU features it stands for on this host are part
    of it too: a module built for another CPU is another module.
    """
    compile_args, link_args = build_flags()
    target = (native_target(find_compiler()),) if "-march=native" in compile_args else ()
    return (*toolchain_fingerprint(), *compile_args, *link_args, *target)


def _content_key(content, code_text, include_dirs, library_dirs, libraries, compile_args, toolchain=None):
    """Hash a module's content with the headers it includes from include_dirs and its build settings."""
    headers = local_headers(code_text(), include_dirs) if include_dirs else []
    parts = [content, *headers, *(toolchain or toolchain_parts()),
             repr(list(include_dirs)), repr(list(library_dirs)), repr(list(libraries)), repr(list(compile_args))]
    return cache_key(*parts)


def module_key(generated, toolchain=None):
    """Return the cache key of generated source: its content, the headers it includes, the toolchain."""
    return _content_key(generated.source, lambda: generated.source, generated.include_dirs, generated.library_dirs,
                        generated.libraries, generated.compile_args, toolchain)


def region_key(parts, toolchain=None):
    """Return the cache key of a region's module from the parts it renders from (no rendering).

    The template's text and every code string of every op and type are in it,
    so an edited op, a redefined class or another constant baked into c_code
    gives another key; nothing trusts a version number alone.
    """
    return _content_key(template_text() + "\0" + parts.content(), parts.code_text, parts.include_dirs,
                        parts.library_dirs, parts.libraries, parts.compile_args, toolchain)


def compile_region(region, description=""):
    """Return the loaded extension module computing `region`.

    The key comes from the parts the module renders from, so a warm process
    loads its module without importing jinja2 or rendering anything.
    """
    from opkit.cop.shipped import find_shipped  # shipped.py builds on this module's helpers

    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    try:
        parts = collect_module(region)
        # Memory and the modules installed packages ship come first: neither needs a compiler.
        module = find_shipped(region, parts) if parts.versioned else None
        if module is None:
            key = region_key(parts)
            module = _cache_for(parts.versioned).lookup(key, module_name_for(key))
            if module is None:
                from opkit.cop.incremental import incremental_builder

                module = _build(render_parts(parts), key, description, incremental_builder(region, parts))
    except CompileError as exc:
        raise _with_context(exc, region)
    return module


def compile_generated(generated, description=""):
    """Return the loaded module for generated source, from the cache or freshly built."""
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    return _build(generated, module_key(generated), description)


def _cache_for(versioned):
    return default_cache() if versioned else process_cache()


def _build(generated, key, description, incremental=None):
    """Build `generated` under `key`; `incremental(tmp_dir, name)`, if given, links it from node objects instead.

    An incremental build that fails (a compile error, a lock waited for too long,
    an object cache that cannot be written), unless a compiler ran past
    config.compile_timeout, is done again as one module: the error a user sees,
    if any, is the whole module's.
    """
    name = module_name_for(key)

    def build(tmp_dir):
        started = time.perf_counter()
        built = None
        if incremental is not None:
            from opkit.cop.private_fs import CacheNotWritableError

            try:
                built = incremental(tmp_dir, name)
            except (CompileError, CacheNotWritableError) as exc:  # a cache bypassed for a damaged entry, say
                if getattr(exc, "timed_out", None) is not None:
                    raise
                from opkit.logs import log_info

                log_info("incremental build of %s failed, building it as one module:\n%s", name, exc)
                (pathlib.Path(tmp_dir) / f"{name}.log").unlink(missing_ok=True)
        if built is None:
            built = build_extension(generated.with_name(name), name, tmp_dir, include_dirs=generated.include_dirs,
                                    library_dirs=generated.library_dirs, libraries=generated.libraries,
                                    extra_compile_args=generated.compile_args)
        elapsed = time.perf_counter() - started
        if elapsed > COMPILE_LOG_AFTER:
            from opkit.logs import log_info

            log_info("compiled %s (module %s) in %.2f s", description or "a module", name, elapsed)
        return built

    return _cache_for(generated.versioned).get_or_build(key, build, module_name=name,
                                                        extra_meta={"description": description[:500]})


def _with_context(exc, region):
    """Name the nodes being compiled in the error, keeping its class and attributes."""
    nodes = "\n".join(f"  {node}  [op {type(node.op).__module__}.{type(node.op).__qualname__}]"
                      for node in region.nodes[:8])
    more = f"\n  ... and {len(region.nodes) - 8} more" if len(region.nodes) > 8 else ""
    exc.message = f"{exc.message}\nwhile compiling:\n{nodes}{more}"
    exc.args = (exc.message,)
    return exc


def make_region_runner(region, description="", shared_cells=()):
    """Return the C runner of `region`: call it with the region's inputs.

    `shared_cells` holds the storage list of each of `region.shared`: the runner
    reads their values and stores `region.updates` into them at every call.
    """
    module = region.module = compile_region(region, description)
    return module.make(failure_notes(region), *[constant.data for constant in region.constants],
                       *region_params(region), *shared_cells)

"""A Region's module, through one of two doors: `load_region` (memory, shipped modules; never a compiler) and
`build_region` (those, then the cache by the region's key, then the compiler).

A module found nowhere is built by the build side (opkit.cop.incremental.build_module: the compilers, the
precompiled header, lint, incremental builds), imported only then: a process that loads cached modules
never imports it.
"""

from __future__ import annotations

import time

from opkit.cop.toolchain.identity import module_key, region_key
from opkit.cop.toolchain.sanitize import require_runtime
from opkit.cop.compiledir.text_memo import flush as keep_generated_texts
from opkit.cop.generate.codegen import collect_module, failure_notes, region_params, render_parts
from opkit.cop.store.cache import default_cache, module_name_for, process_cache
from opkit.cop.store.shipped import find_shipped
from opkit.errors import CompileError
from opkit.logs import log_info

# A compile that takes longer than this (seconds) is logged at INFO on the `opkit` logger.
COMPILE_LOG_AFTER = 1.0


def load_region(region, parts=None):
    """Return the module an installed package ships for `region`, loaded (kept in memory once loaded), or None.

    The door without a compiler: a shipped module's key is portable (no compiler, no
    paths), so nothing here locates or runs one. The compile cache's modules are keyed
    by the compiler that built them: looking one up is `build_region`'s.
    """
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    parts = collect_module(region) if parts is None else parts
    return find_shipped(region, parts) if parts.versioned else None


def build_region(region, description=""):
    """Return the loaded extension module computing `region`: shipped, from the cache, or built.

    The door with a compiler (the backend that calls it compiles). The key comes from
    the parts the module renders from, so a warm process loads its module without
    importing jinja2 or rendering anything.
    """
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    try:
        parts = collect_module(region)
        module = load_region(region, parts)  # memory and installed packages first: neither needs a compiler
        if module is None:
            key = region_key(parts)
            keep_generated_texts()  # the key exists: the texts its code was generated from are kept now
            cache = _cache_for(parts.versioned)
            module = cache.lookup(key, module_name_for(key))
            if module is None:
                generated, incremental = render_parts(parts), _build_side().incremental_builder(region, parts)
                module = _build(cache, key, generated, description, incremental)
    except CompileError as exc:
        raise _with_context(exc, region)
    return module


def compile_generated(generated, description=""):
    """Return the loaded module for generated source, from the cache or freshly built."""
    require_runtime()  # a sanitized module loaded without its runtime would abort the process
    key = module_key(generated)
    keep_generated_texts()
    return _build(_cache_for(generated.versioned), key, generated, description)


def _cache_for(versioned):
    return default_cache() if versioned else process_cache()


def _build_side():
    """Return opkit.cop.incremental, the build side: what only a module found nowhere needs."""
    from opkit.cop import incremental  # lazy: the build side's one door (a warm process never opens it)

    return incremental


def _build(cache, key, generated, description, incremental=None):
    """Return the module under `key` in `cache`, built there from `generated` if it is not (from node objects
    by `incremental(tmp_dir, name)` where given: opkit.cop.incremental.build_module).

    A build that takes over COMPILE_LOG_AFTER seconds is logged.
    """
    name = module_name_for(key)

    def build(tmp_dir):
        started = time.perf_counter()
        built = _build_side().build_module(generated, name, tmp_dir, incremental)
        elapsed = time.perf_counter() - started
        if elapsed > COMPILE_LOG_AFTER:
            log_info("compiled %s (module %s) in %.2f s", description or "a module", name, elapsed)
        return built

    return cache.get_or_build(key, build, module_name=name, extra_meta={"description": description[:500]})


def _with_context(exc, region):
    """Name the nodes being compiled in the error, keeping its class and attributes."""
    nodes = "\n".join(f"  {node}  [op {type(node.op).__module__}.{type(node.op).__qualname__}]"
                      for node in region.nodes[:8])
    more = f"\n  ... and {len(region.nodes) - 8} more" if len(region.nodes) > 8 else ""
    exc.message = f"{exc.message}\nwhile compiling:\n{nodes}{more}"
    exc.args = (exc.message,)
    return exc


def make_region_runner(region, module, shared_cells=()):
    """Return the C runner of `region` from its loaded `module` (load_region's or build_region's).

    `shared_cells` holds the storage list of each of `region.shared`: the runner
    reads their values and stores `region.updates` into them at every call.
    """
    region.module = module
    return module.make(failure_notes(region), *[constant.data for constant in region.constants],
                       *region_params(region), *shared_cells)

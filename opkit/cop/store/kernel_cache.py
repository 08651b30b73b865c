"""Compiled CUDA kernels kept by key in the compile cache, entries like a module's.

An entry (`kernels_<key>/`) holds the kernels' source (`kernels.cu`), their PTX (`kernels.ptx`, its sha256 in
meta.json) and its main file, the cubin (`.cubin`), or the PTX again for a `compute_XX` architecture
(`.ptx`). The key is the identity of what NVRTC received (opkit.cop.toolchain.nvrtc_kernels.kernel_request);
opkit.cop.kernels compiles and publishes through `load_or_build`, and the GPU runtime (opkit.gpu.runtime) of a
process that compiled nothing finds a cached module's kernels by its key (`kernel_binary`). Reading an entry
needs no NVRTC.
"""

from __future__ import annotations

import collections
import json
import pathlib
from typing import NamedTuple

from opkit.cop.compiledir.layout import META
from opkit.cop.compiledir.private_fs import write_private
from opkit.cop.store.cache import ModuleCache, cache_at_root
from opkit.core.digest import sha256
from opkit.errors import CompileError

SOURCE_NAME, PTX_NAME = "kernels.cu", "kernels.ptx"

# What this process did with kernel modules: "built" (compiled and published), "loaded" (found on disk).
kernel_events: collections.Counter = collections.Counter()

_binaries: dict[str, tuple[bytes, str]] = {}  # key -> (cubin, PTX) of the kernels this process has


class KernelModule(NamedTuple):
    """What the runtime needs of a node's compiled kernels."""

    key: str  # the identity: kernel_binary(key) finds it again, in any process
    arch: str  # 'sm_90' (cubin and PTX) or 'compute_90' (PTX only)
    cubin: bytes
    ptx: str
    symbols: tuple[str, ...]  # the APPLY_SPECIFIC'd kernel names, as in the cubin


class KernelCache(ModuleCache):
    """Compiled kernels in the compile cache, entries like a module's: serving one returns its verified file."""

    events = kernel_events

    def _open(self, path: pathlib.Path, module_name: str):
        return path


def kernel_cache() -> KernelCache:
    """Return the kernel cache at the compile cache's root (config.compiledir)."""
    return cache_at_root(KernelCache)


def module_name_for(key: str) -> str:
    """Return the name of a kernel module's entry files."""
    return f"kernels_{key[:32]}"


def write_source(tmp_dir, text: str) -> pathlib.Path:
    """Write the kernels' source into the entry being built in `tmp_dir` (before NVRTC runs: a failed compile's
    error names it, kept); return its path."""
    source = pathlib.Path(tmp_dir) / SOURCE_NAME
    write_private(source, text.encode("utf-8", "surrogateescape"), sync=False)
    return source


def write_entry(tmp_dir, key: str, compiled, meta: dict) -> pathlib.Path:
    """Write the compiled files of the entry of `key` into `tmp_dir` from `compiled` (an NVRTC result: its cubin,
    b"" for PTX only, and its PTX); record the PTX's sha256 in `meta` (meta.json's extra). Return the main file,
    which the cache checks by sha256."""
    tmp_dir = pathlib.Path(tmp_dir)
    write_private(tmp_dir / PTX_NAME, compiled.ptx.encode("utf-8"), sync=False)
    meta["ptx_sha256"] = sha256(compiled.ptx.encode("utf-8")).hexdigest()
    main = tmp_dir / f"{module_name_for(key)}.{'cubin' if compiled.cubin else 'ptx'}"
    write_private(main, compiled.cubin or compiled.ptx.encode("utf-8"), sync=False)
    return main


def load_or_build(key: str, build, meta: dict) -> tuple[bytes, str]:
    """Return (cubin, PTX) of the kernels under `key`: this process's, the cache's, or made by `build(tmp_dir)`
    (which writes the entry with write_source and write_entry and returns its main file) and published under `key`."""
    known = _binaries.get(key)
    if known is not None:
        return known
    cache, module_name = kernel_cache(), module_name_for(key)
    path = cache.get_or_build(key, build, module_name=module_name, extra_meta=meta)
    try:
        known = _read_entry(pathlib.Path(path))
    except _DamagedEntry:  # a PTX file damaged since it was published: compiled again, as a damaged cubin is
        cache._loaded.pop(key, None)
        cache.discard(cache.entry_dir(key))
        path = cache.get_or_build(key, build, module_name=module_name, extra_meta=meta)
        known = _read_entry(pathlib.Path(path))
    _binaries[key] = known
    return known


class _DamagedEntry(CompileError):
    """A kernel module's entry whose PTX or meta.json cannot be used."""


def _read_entry(main: pathlib.Path) -> tuple[bytes, str]:
    """Return (cubin, PTX) of a verified entry's main file; the PTX is checked against meta.json."""
    data = main.read_bytes()
    entry = main.parent
    try:
        ptx_bytes = (entry / PTX_NAME).read_bytes()
        expected = json.loads((entry / META).read_text(encoding="utf-8"))["extra"]["ptx_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _DamagedEntry(f"the kernel module {entry} is damaged ({exc}); `opkit cache clear` removes it") from None
    if sha256(ptx_bytes).hexdigest() != expected:
        raise _DamagedEntry(f"the kernel module {entry}: {PTX_NAME} does not match its sha256 in meta.json; "
                            "`opkit cache clear` removes it")
    cubin = b"" if main.suffix == ".ptx" else data
    return cubin, ptx_bytes.decode("utf-8")


def kernel_binary(key: str) -> tuple[bytes, str]:
    """Return (cubin, PTX) of the kernel module `key` (kernel_module_key), compiled by this process or another.

    The cubin is b"" for a module compiled for `compute_XX` only. LookupError if no such module is cached.
    """
    known = _binaries.get(key)
    if known is None:
        path = kernel_cache().lookup(key, module_name_for(key))
        if path is None:
            raise LookupError(f"no compiled CUDA kernels with key {key} in the compile cache "
                              f"{kernel_cache().root}: compile them first (opkit.gpu.compile_kernels(node))")
        known = _binaries[key] = _read_entry(pathlib.Path(path))
    return known

"""Shipped GPU kernels: cubins (and their PTX) that an op package carries for machines without NVRTC.

`opkit build OP --dtypes ... --arch sm_80,sm_90 --into PACKAGE_DIR` compiles the node's `#section
kernels` with NVRTC for each architecture and stores each in
`PACKAGE_DIR/_opkit_modules/kernels/<key>/` (the cubin, its PTX and a meta.json), next to the host
modules built for those architectures (opkit.cop.store.shipped).

`<key>` is the portable identity of what NVRTC receives (opkit.cop.toolchain.nvrtc_kernels.kernel_request,
the request the kernel cache keys too): the kernel text with its `#line` directives' folders left out, the
bytes of the headers it includes (through the op's folders and `--include-path`), opkit's NVRTC prelude, every option
(opkit's, the op's c_kernel_options, the caller's) and the architecture, but not NVRTC's version (the
machine running it may have no NVRTC to ask) nor any folder. meta.json keeps the key the
kernels had where they were built (`kernel_key`, which names NVRTC's version): a GPU node's host
module holds that key, so the host module built there is the one found here.

At run time (opkit.gpu.kernel_hooks, the cuda target's hooks) a node's kernels come from here before NVRTC
is asked: for the device's architecture; else, where NVRTC is missing, the newest shipped architecture
below the device's, whose PTX the driver compiles for the device (CUDA's forward compatibility).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import pathlib
import re

from opkit.cop import kernels
from opkit.cop.toolchain.identity import request_key
from opkit.cop.toolchain.nvrtc import normalize_arch
from opkit.cop.compiledir.private_fs import intact
from opkit.cop.store.shipped import SHIPPED_DIR, _publish_lock, _replace, shipped_dir
from opkit.core.digest import sha256

KERNELS_DIR = "kernels"  # under a package's _opkit_modules/
FORMAT = "opkit-shipped-kernels-1"
META = "meta.json"
CUBIN, PTX = "kernels.cubin", "kernels.ptx"

_arch = contextvars.ContextVar("opkit_build_arch", default=None)
_found: dict = {}  # (package directory, key) -> KernelModule, or None when absent


@contextlib.contextmanager
def building_for(arch):
    """Make GPU nodes' host modules for `arch` (e.g. 'sm_80') in the `with` block, whatever the device here."""
    token = _arch.set(normalize_arch(arch))
    try:
        yield
    finally:
        _arch.reset(token)


def building_arch() -> str | None:
    """Return the architecture set by building_for, or None (then the current device's is used)."""
    return _arch.get()


def arch_number(arch: str) -> int:
    """Return the compute capability of 'sm_90' (90), 'sm_90a' (90)."""
    return int(re.sub(r"\D", "", normalize_arch(arch)))


def shipped_kernel_key(node, arch, options=(), name=kernels.DEFAULT_NAME) -> str:
    """Return the portable key of `node`'s kernels for `arch` (see the module's doc): the key of the request
    kernel_module compiles (opkit.cop.toolchain.nvrtc_kernels.kernel_request), portable."""
    return request_key(kernels.kernel_request(node, arch, options, name, portable=True), FORMAT)


def ship_kernels(node, arch, into, description: dict, options=(), name=kernels.DEFAULT_NAME) -> pathlib.Path:
    """Compile `node`'s kernels for `arch` (NVRTC, no GPU needed) into `into/_opkit_modules/kernels/<key>/`.

    Return that directory. The cubin and the PTX are written whole or not at all, then meta.json.
    """
    arch = normalize_arch(arch)
    module = kernels.kernel_module(node, arch, options, name)
    key = shipped_kernel_key(node, arch, options, name)
    entry = pathlib.Path(into) / SHIPPED_DIR / KERNELS_DIR / key
    ptx = module.ptx.encode("utf-8")
    meta = {"format": FORMAT, "key": key, "kernel_key": module.key, "arch": arch, "symbols": list(module.symbols),
            "nvrtc": ".".join(map(str, kernels.nvrtc_version())), "cubin_size": len(module.cubin),
            "cubin_sha256": sha256(module.cubin).hexdigest(), "ptx_size": len(ptx),
            "ptx_sha256": sha256(ptx).hexdigest(), **description}
    entry.mkdir(parents=True, exist_ok=True)
    with _publish_lock(entry):
        _replace(entry / CUBIN, module.cubin)
        _replace(entry / PTX, ptx)
        _replace(entry / META, (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode())
    return entry


def find_shipped_kernels(node, arch, name=kernels.DEFAULT_NAME, options=(), exact=True):
    """Return the KernelModule the package of `node`'s op ships for `arch`, or None.

    With `exact=False`, the newest architecture shipped below `arch` when none is for `arch` itself
    (its cubin does not fit the device: the runtime loads its PTX).
    """
    directory = shipped_dir(node.op)
    if directory is None or not (directory / KERNELS_DIR).is_dir():
        return None
    arch = normalize_arch(arch)
    found = _entry(directory, shipped_kernel_key(node, arch, options, name))
    if found is not None or exact:
        return found
    below = sorted((n, a) for n, a in _shipped_archs(directory) if n < arch_number(arch))
    for _, other in reversed(below):
        found = _entry(directory, shipped_kernel_key(node, other, options, name))
        if found is not None:
            return found
    return None


def shipped_archs_note(node, arch) -> str:
    """Return a line saying which architectures the op's package ships kernels for, none fitting `arch`; ''
    if it ships none."""
    directory = shipped_dir(node.op)
    if directory is None or not (directory / KERNELS_DIR).is_dir():
        return ""
    archs = [name for _, name in sorted(_shipped_archs(directory))]
    if not archs:
        return ""
    return (f"\n{directory.parent.name} ships kernels for {', '.join(archs)} (opkit build --arch), none for "
            f"{normalize_arch(arch)} or an architecture below it; ship one for {normalize_arch(arch)}, or install NVRTC")


def _shipped_archs(directory: pathlib.Path) -> set[tuple[int, str]]:
    archs = set()
    for meta_path in (directory / KERNELS_DIR).glob(f"*/{META}"):
        try:
            arch = json.loads(meta_path.read_text(encoding="utf-8"))["arch"]
            archs.add((arch_number(arch), arch))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return archs


def _entry(directory: pathlib.Path, key: str):
    """Return the verified KernelModule in `directory/kernels/<key>/`, or None if absent or damaged."""
    remembered = _found.get((directory, key), False)
    if remembered is not False:
        return remembered
    entry = directory / KERNELS_DIR / key
    module = None
    try:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        cubin, ptx = (entry / CUBIN).read_bytes(), (entry / PTX).read_bytes()
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key \
            and intact(cubin, meta.get("cubin_size"), meta.get("cubin_sha256")) \
            and intact(ptx, meta.get("ptx_size"), meta.get("ptx_sha256")):
        module = kernels.KernelModule(meta["kernel_key"], meta["arch"], cubin, ptx.decode("utf-8"),
                                      tuple(meta.get("symbols", ())))
    _found[(directory, key)] = module
    return module


def shipped_kernel_entries(directory: pathlib.Path | None) -> list[dict]:
    """Return the meta.json of every shipped kernel module in a package's shipped directory."""
    entries = []
    for meta_path in sorted((directory / KERNELS_DIR).glob(f"*/{META}")) if directory is not None else []:
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        entries.append({**(meta if isinstance(meta, dict) else {}), "entry": str(meta_path.parent)})
    return entries

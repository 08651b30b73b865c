"""Shipped modules: compiled modules that an op package carries in its wheel, for machines without a compiler.

`opkit build OP --dtypes ... --into PACKAGE_DIR` stores a one-node module in
`PACKAGE_DIR/_opkit_modules/<key>/` (the shared object and a meta.json). At run
time a region whose ops come from a package holding such a directory is looked
up there before the user cache (see opkit.cop.compile.build_region).

A shipped module's key leaves out the compiler and every path (the machine
running it may have no compiler, and installs the package elsewhere), and keeps
what decides whether it can run here: the op's content (the module template,
every code string of its ops and types, the headers they include), the Python
ABI, the numpy C-API version, the CPU baseline (config.march) and the build
flags (a sanitizer among them). Any difference gives another key, so a mismatch is never loaded.
Sanitized modules are never shipped, and a sanitized process never loads a shipped one.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import platform
import sys
import warnings

from opkit.config import config
from opkit.cop.toolchain.identity import Toolchain, region_request, request_key
from opkit.cop.toolchain.flags import module_flags
from opkit.cop.store.cache import module_events
from opkit.cop.toolchain.compiler import extension_suffix, numpy_c_api_version, python_abi
from opkit.cop.load.loader import load_module
from opkit.cop.compiledir.private_fs import intact
from opkit.core.digest import sha256

SHIPPED_DIR = "_opkit_modules"
SHIPPED_FORMAT = "opkit-shipped-1"
META = "meta.json"

_package_dirs: dict[str, pathlib.Path | None] = {}  # top-level package -> its shipped directory, if any
_loaded: dict[str, object] = {}  # shipped key -> loaded module


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
    needed = _X86_LEVELS.get(march)
    if not needed:
        return True  # the base level, or a name opkit cannot check: the user who named it vouches for it
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace") if cpuinfo is None \
            else cpuinfo
    except OSError:
        return True  # not Linux: no way to tell here
    flags = set(next((line.partition(":")[2].split() for line in text.splitlines() if line.startswith("flags")), ()))
    return not flags or all(flag in flags for flag in needed)


def cpu_baseline() -> str:
    """Return the CPU a shipped module is built for: the machine and its baseline (see ship_march)."""
    return f"{platform.machine()} march={ship_march() or 'default'}"


def shipping_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the (compile, link) flags of a shipped module: known without asking a compiler.

    build_flags() probes the compiler (for OpenMP); a machine without one must
    compute the same key. Shipped modules are always built with OpenMP (`opkit
    build --into` sees to it), whatever the cores of the building or the running
    machine: how many threads run is a run-time matter (config.threads). A sanitized
    key is another key (sanitized modules are never shipped: see ship_refusal).
    """
    return module_flags(ship_march(), True)


def ship_refusal() -> str | None:
    """Return why modules built with this configuration must not ship, or None if they may."""
    if config.sanitize:
        return (f"modules built with sanitize={config.sanitize} cannot be shipped: they abort any process that "
                "does not preload the sanitizer runtime\n"
                f"fix: run `opkit build ... --into` without sanitize={config.sanitize} (unset it in OPKIT_FLAGS)")
    return None


def machine_identity() -> dict:
    """Return what a shipped module must have been built for to load here."""
    return {"python_abi": python_abi(), "numpy_c_api": numpy_c_api_version(), "cpu": cpu_baseline(),
            "platform": sys.platform}


def shipping_toolchain() -> Toolchain:
    """Return the toolchain a shipped module is built with and looked up by: no compiler, what the machine
    must be (machine_identity) and the shipping flags."""
    compile_args, link_args = shipping_flags()
    return Toolchain(compile_args=compile_args, link_args=link_args,
                     system=tuple(f"{k}={v}" for k, v in sorted(machine_identity().items())))


def shipped_key(parts) -> str:
    """Return the key of a region's shipped module from the parts it renders from (see the module docstring):
    the portable identity of the request that builds it (opkit.cop.toolchain.identity)."""
    return request_key(region_request(parts, shipping_toolchain(), portable=True), SHIPPED_FORMAT)


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
    if not directories or not cpu_runs(ship_march()) or config.sanitize:
        return None  # shipped modules are never sanitized: a sanitized process builds its own
    key = shipped_key(parts)
    module = _loaded.get(key)
    if module is None:
        for directory in directories:
            module = _load(directory / key, key)
            if module is not None:
                _loaded[key] = module
                break
            if (directory / key).is_dir():
                _warn_unusable(directory / key, key)
    return module


_warned: set[str] = set()  # shipped entries already said to be unusable in this process


def _warn_unusable(entry: pathlib.Path, key: str) -> None:
    """Say once per process which shipped module exists for a key but cannot be used, and why."""
    problem = entry_problem(entry, key)
    if problem is not None and str(entry) not in _warned:
        _warned.add(str(entry))
        warnings.warn(f"the shipped module in {entry} is not used: {problem[0]}", RuntimeWarning, stacklevel=4)


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
    if not intact(data, meta.get("so_size"), meta.get("so_sha256")):
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
    refusal = ship_refusal()
    if refusal is not None:
        raise ValueError(refusal)
    key = shipped_key(parts)
    entry = pathlib.Path(into) / SHIPPED_DIR / key
    source = pathlib.Path(module.__file__)
    data = source.read_bytes()
    digest = sha256(data).hexdigest()
    # Named by its content: a new build never overwrites the file an older meta.json names (see _publish).
    so_name = f"{module.__name__}.{digest[:16]}{extension_suffix()}"
    meta = {"format": SHIPPED_FORMAT, "key": key, "module_name": module.__name__, "so_name": so_name,
            "so_size": len(data), "so_sha256": digest, **machine_identity(),
            **description}
    entry.mkdir(parents=True, exist_ok=True)
    with _publish_lock(entry):
        _publish(entry, data, meta)
        for staging in entry.parent.glob(f".{key}.*"):  # an older opkit's staging folder, left by a kill
            _remove(staging)
    return entry


@contextlib.contextmanager
def _publish_lock(entry: pathlib.Path):
    """Hold an flock on the entry's directory: one publisher per key at a time; the kernel frees it if one dies."""
    import fcntl

    fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _publish(entry: pathlib.Path, data: bytes, meta: dict) -> None:
    """Put a module into its entry by per-file atomic replaces; at every instant the entry holds a usable module.

    The shared object goes in first under its content name, then meta.json is
    replaced (the switch), and only then are files no meta.json names removed:
    a kill at any point leaves the old module or the new one, never neither.
    Publishing the same bytes again changes nothing.
    """
    so = entry / meta["so_name"]
    if not (so.is_file() and so.stat().st_size == len(data) and
            sha256(so.read_bytes()).hexdigest() == meta["so_sha256"]):
        _replace(so, data)
    _replace(entry / META, (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode())
    for leftover in entry.iterdir():
        if leftover.name not in (META, meta["so_name"]):
            _remove(leftover)


def _replace(path: pathlib.Path, data: bytes) -> None:
    """Write `path` whole or not at all: a private temporary file, flushed to disk, renamed over it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _remove(path: pathlib.Path) -> None:
    """Remove an old shared object, a killed publisher's temporary file or an older opkit's leftover folder."""
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


_IDENTITY_LABELS = {"python_abi": "Python", "numpy_c_api": "numpy C-API", "cpu": "CPU", "platform": "platform"}


def built_for(meta: dict) -> str:
    """Return what a shipped module was built for, in words (from its meta.json)."""
    return ", ".join(f"{label} {meta.get(field, '?')}" for field, label in _IDENTITY_LABELS.items())


def entry_problem(entry: pathlib.Path, key: str | None = None) -> tuple[str, bool] | None:
    """Return why the shipped module in `entry` does not load here, and whether it is damaged; None if it fits.

    `key`: the shipped key asked for, when known; a module built for this
    machine from other code or flags is then said to be another build.
    """
    try:
        meta = json.loads((entry / META).read_text(encoding="utf-8"))
        so = entry / os.path.basename(meta["so_name"])
    except OSError as exc:
        return f"{entry / META} cannot be read ({exc.strerror or exc})", True
    except (ValueError, KeyError, TypeError):
        return f"{entry / META} is damaged (not the JSON opkit wrote)", True
    here = machine_identity()
    differences = [f"{label} {meta.get(field)}, this machine has {here[field]}"
                   for field, label in _IDENTITY_LABELS.items() if meta.get(field) != here[field]]
    if differences:
        return "built for " + "; ".join(differences), False
    if not cpu_runs(ship_march()):
        return f"this CPU lacks instructions of its baseline march={ship_march()}", False
    if config.sanitize:
        return f"this process is sanitized (sanitize={config.sanitize}): shipped modules are never used", False
    try:
        size = so.stat().st_size
    except OSError as exc:
        return f"its shared object {so} cannot be read ({exc.strerror or exc})", True
    if size != meta.get("so_size"):
        return f"its shared object {so} is damaged: {size} bytes where meta.json says {meta.get('so_size')}", True
    if sha256(so.read_bytes()).hexdigest() != meta.get("so_sha256"):
        return f"its shared object {so} is damaged: its content does not match the sha256 in meta.json", True
    if key is not None and meta.get("key") != key:
        return ("built from other code or build flags (another version of the op, or other OPKIT_FLAGS cflags)",
                False)
    if key is not None:
        try:
            load_module(so, meta["module_name"])
        except ImportError as exc:
            return f"its shared object {so} cannot be loaded: {exc}", True
    return None


def shipped_entries(directory: pathlib.Path | None) -> list[dict]:
    """Return the meta.json of every module in a shipped directory, with its folder as "entry" (damaged: that only)."""
    entries = []
    for meta_path in sorted(directory.glob(f"*/{META}")) if directory is not None else []:
        if meta_path.parent.name.startswith("."):
            continue  # an older opkit's staging folder, not a module
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        entries.append({**(meta if isinstance(meta, dict) else {}), "entry": str(meta_path.parent)})
    return entries

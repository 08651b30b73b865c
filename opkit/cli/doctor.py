"""`opkit doctor`: check what building ops needs, and say how to fix each problem."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import platform
import re
import sys

from opkit.cli.errors import CommandFailed
from opkit.cli.listing import load_quietly
from opkit.cli.ops import make_node
from opkit.config import config
from opkit.cop.blas import describe
from opkit.cop.generate.codegen import collect_module
from opkit.cop.generate.region import Region
from opkit.cop.generate.target import current_target
from opkit.cop.store.shipped import built_for, entry_problem, shipped_dir, shipped_entries, shipped_key
from opkit.cop.toolchain import nvrtc
from opkit.cop.toolchain.compiler import describe_toolchain
from opkit.errors import CompileError
from opkit.gpu.device import using_device
from opkit.gpu.shipped_kernels import building_for
from opkit.plugins.manager import fix_advice, load_plugins


def platform_check(system: str) -> tuple[str, bool, str]:
    """Say plainly whether this operating system is supported."""
    if system in ("Linux", "Darwin"):
        return ("platform", True, f"{system}: supported")
    return ("platform", False, f"{system or 'this system'} is not supported: Linux and macOS are supported "
                               f"(on Windows, use WSL)")


def cache_check(path: str) -> tuple[str, bool, str]:
    """Check the cache directory: private to this user if it exists, creatable if not."""
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.exists(path):
        parent = path
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        ok = os.access(parent, os.W_OK | os.X_OK)
        detail = f"{path} (created on first compile)" if ok else (
            f"{path} does not exist and {parent} is not writable; fix: set OPKIT_COMPILEDIR to a directory you own")
        return ("cache directory", ok, detail)
    st = os.stat(path)
    if st.st_uid != os.getuid():
        return ("cache directory", False, f"{path} is owned by uid {st.st_uid}, not you; "
                                          f"fix: set OPKIT_COMPILEDIR to a directory you own")
    if st.st_mode & 0o022:
        return ("cache directory", False, f"{path} is writable by other users (mode {st.st_mode & 0o777:o}); "
                                          f"fix: chmod 700 {path}")
    if not os.access(path, os.W_OK | os.X_OK):
        return ("cache directory", False, f"{path} is not writable; fix: chmod u+rwx {path}")
    return ("cache directory", True, path)


def plugin_checks() -> list[tuple[str, bool, str]]:
    """Report each broken plugin as a problem, with how to fix or skip it."""
    state = load_quietly()
    loaded = sum(record.status == "loaded" for record in state.plugins)
    checks = [("plugins", True, f"{loaded} loaded, {len(state.ops)} ops")]
    for record in state.broken:
        checks.append((f"plugin {record.name}", False,
                       f"{record.distribution} {record.version}: {record.error}; {fix_advice(record)}"))
    return checks


def shipped_checks() -> list[tuple[str, bool, str]]:
    """List, per installed op, the signatures its package ships modules for that load on this machine, and the
    shipped modules that do not (what each was built for and why it does not fit; a damaged one is a problem)."""
    state = load_plugins()
    checks = []
    for name, registrations in sorted(state.ops.items()):
        signatures, unusable = shipped_modules(name, registrations[0].obj)
        if signatures:
            checks.append(("runs without a compiler", True, f"{name}: {'; '.join(f'({s})' for s in signatures)}"))
        checks += [("shipped module", not damaged, f"{name} {detail}") for detail, damaged in unusable]
    if not checks:
        checks.append(("runs without a compiler", True, "no installed op ships compiled modules "
                                                        "(`opkit build OP --dtypes ... --into PACKAGE_DIR` adds them)"))
    return checks


def shipped_modules(name, op) -> tuple[list[str], list[tuple[str, bool]]]:
    """Return the signatures of `op`'s shipped modules that load here (sorted), and for each one that does not
    a line (its signature, what it was built for, why it does not fit) and whether it is damaged."""
    op_class = f"{type(op).__module__}.{type(op).__qualname__}"
    found, unusable = set(), []
    for meta in shipped_entries(shipped_dir(op)):
        entry = pathlib.Path(meta["entry"])
        if "op_class" not in meta:
            problem, damaged = entry_problem(entry)
            unusable.append((f"(a module in {entry}): not used: {problem}", damaged))
            continue
        if meta["op_class"] != op_class:
            continue
        ndims = meta.get("ndims") or []
        try:
            with _built_for_device(meta):
                node = make_node(name, ",".join(meta.get("dtypes", [])),
                                 ",".join(map(str, ndims)) if None not in ndims else None)
                key = shipped_key(collect_module(Region.of_node(node, current_target())))
        except (CommandFailed, TypeError, ValueError, NotImplementedError, CompileError):
            key = ""  # no node of these dtypes here (another version of the op), or its kernels cannot be had
        problem = entry_problem(entry, key)
        if problem is None:
            found.add(meta.get("signature", "?") + (f"; {meta['arch']}" if meta.get("arch") else ""))
        else:
            unusable.append((f"({meta.get('signature', '?')}) built for {built_for(meta)}: not used: {problem[0]}",
                             problem[1]))
    return sorted(found), unusable


def _built_for_device(meta: dict):
    """Return a context in which a shipped module's node is made as it was built: a GPU node's for device
    'cuda' and the architecture it was built for (`opkit build --arch`), any other as usual."""
    if not meta.get("arch"):
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(using_device(meta.get("device", "cuda")))
    stack.enter_context(building_for(meta["arch"]))
    return stack


def blas_check() -> tuple[str, bool, str]:
    """Name the BLAS that ops calling BLAS link (config.blas__ldflags), or say how to get one."""
    try:
        return describe()
    except ValueError as exc:  # a malformed OPKIT_FLAGS: reported once, by the command itself
        return ("BLAS", False, str(exc))


INSTALL_CUDA = "pip install 'opkit-sdk[cuda]'"


def gpu_checks() -> list[tuple[str, bool, str]]:
    """Report CuPy, NVRTC, the CUDA driver and the GPUs (SPEC 16), or why there are none.

    None of them is needed for CPU ops: a missing GPU is no problem. A problem is a half-installed GPU
    stack: CuPy that does not import, or CuPy without the NVRTC that compiles kernels.
    """
    cupy, cupy_line = cupy_check()
    nvrtc_line = nvrtc_check(cupy_installed=cupy is not None or not cupy_line[1])
    return [cupy_line, nvrtc_line, *device_checks(cupy)]


def cupy_check():
    """Return (the cupy module or None, the CuPy line)."""
    try:
        import cupy
    except ModuleNotFoundError as exc:
        if exc.name not in ("cupy", "cupy_backends"):
            return None, ("CuPy", False, f"installed but does not import: {exc}; fix: {INSTALL_CUDA}")
        return None, ("CuPy", True, f"not installed: GPU ops (device='cuda') need it: {INSTALL_CUDA}; "
                                    "device='cuda-interpret' runs kernels on the CPU without it")
    except Exception as exc:  # noqa: BLE001 - a broken install fails in many ways; say how
        return None, ("CuPy", False, f"installed but does not import: {type(exc).__name__}: {exc}; "
                                     f"fix: pip install --force-reinstall 'opkit-sdk[cuda]'")
    return cupy, ("CuPy", True, f"{cupy.__version__} (CUDA runtime {_cuda_version(_runtime_version(cupy))})")


def _runtime_version(cupy) -> int:
    try:
        return cupy.cuda.runtime.runtimeGetVersion()
    except Exception:  # noqa: BLE001 - reported as unknown
        return 0


def _cuda_version(number: int) -> str:
    """Return CUDA's version number (12090) as '12.9'."""
    return f"{number // 1000}.{number % 1000 // 10}" if number else "unknown"


def nvrtc_check(cupy_installed: bool) -> tuple[str, bool, str]:
    """Return the NVRTC line: its version and library, or why there is none (a problem only beside CuPy)."""
    try:
        version, where = nvrtc_version_and_path()
    except OSError as exc:
        fix = "pip install nvidia-cuda-nvrtc-cu12 (or " + INSTALL_CUDA + ")"
        if cupy_installed:
            return ("NVRTC", False, f"not found ({exc}): CuPy is installed but kernels cannot compile; fix: {fix}")
        return ("NVRTC", True, f"not found: kernels compile with it ({fix}); modules shipped with "
                               "`opkit build --arch` load without it")
    return ("NVRTC", True, f"{version[0]}.{version[1]} ({where})")


def nvrtc_version_and_path() -> tuple[tuple[int, int], str]:
    """Return NVRTC's (major, minor) and the library it came from; OSError if there is none."""
    try:
        return tuple(nvrtc.nvrtc_version()), nvrtc.find_library()  # the library opkit compiles kernels with
    except CompileError as exc:  # NvrtcNotFoundError: not installed, or not loadable
        raise OSError(str(exc).partition("\n")[0]) from None


def device_checks(cupy) -> list[tuple[str, bool, str]]:
    """Return the driver line and one line per GPU, or a line saying why CuPy finds none."""
    if cupy is None:
        return [("GPU", True, "not checked: CuPy is not installed")]
    runtime = cupy.cuda.runtime
    try:
        driver = runtime.driverGetVersion()
    except Exception:  # noqa: BLE001 - no driver library at all
        driver = 0
    module = _kernel_module_version()
    driver_text = (f"CUDA {_cuda_version(driver)}" + (f", kernel module {module}" if module else "")) if driver \
        else "none loaded (no NVIDIA driver on this machine)"
    lines = [("CUDA driver", True, driver_text)]
    try:
        count = runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CUDARuntimeError: its name says why
        reason = str(exc).partition(":")[0] or type(exc).__name__
        return lines + [("GPU", True, f"none: CuPy finds no CUDA device: {reason}; device='cuda-interpret' runs "
                                      "kernels on the CPU")]
    if count == 0:
        return lines + [("GPU", True, "none: CuPy finds no CUDA device (the driver reports 0)")]
    for index in range(count):
        lines.append((f"GPU {index}", True, describe_device(runtime.getDeviceProperties(index))))
    return lines


def describe_device(properties: dict) -> str:
    """Return a GPU's name, architecture and memory from CuPy's getDeviceProperties."""
    name = properties.get("name", b"?")
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    memory = properties.get("totalGlobalMem", 0) / 2 ** 30
    return f"{name}, sm_{properties.get('major', '?')}{properties.get('minor', '?')}, {memory:.0f} GiB"


def _kernel_module_version() -> str:
    """Return the NVIDIA kernel module's version from /proc/driver/nvidia/version, or ''."""
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8") as handle:
            return kernel_module_version(handle.read())
    except OSError:
        return ""


def kernel_module_version(text: str) -> str:
    """Return the version (e.g. 550.54.15) in the text of /proc/driver/nvidia/version, or ''."""
    found = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", text)
    return found.group(1) if found else ""


def run_doctor(args):
    checks = [platform_check(platform.system()), *describe_toolchain(), ("Python", True, f"{sys.version.split()[0]} at {sys.executable}"),
              cache_check(config.compiledir), blas_check(), *plugin_checks(), *shipped_checks(), *gpu_checks()]
    problems = sum(not ok for _, ok, _ in checks)
    if args.json:
        print(json.dumps({"problems": problems, "checks": [{"name": name, "ok": ok, "detail": detail}
                                                           for name, ok, detail in checks]}, indent=2))
        return 1 if problems else 0
    width = max(len(name) for name, _, _ in checks)
    for name, ok, detail in checks:
        print(f"{'ok  ' if ok else 'FAIL'}  {name.ljust(width)}  {detail}")
    print(f"\n{problems} problem(s) found" if problems else "\neverything opkit needs is here")
    return 1 if problems else 0

"""The GPU runtime as opkit's generated modules and transfers use it: CuPy, imported on first use only.

On device "cuda" GPU values are CuPy arrays: ``empty``/``zeros`` allocate through CuPy's memory pool,
``kernel_function`` loads a node's compiled kernels (cubin, PTX as fallback) and ``current_stream`` is
CuPy's current stream. Nothing here runs at ``import opkit`` or ``import opkit.gpu``.
"""

from __future__ import annotations

import _thread
import functools

import numpy as np

from opkit.cop.store.kernel_cache import kernel_binary

HINT = ("Hint: install the GPU extra (pip install 'opkit-sdk[cuda]') on a machine with an NVIDIA GPU, "
        "or run the same kernels on the CPU with device='cuda-interpret' (opkit.Mode(device='cuda-interpret') "
        "or OPKIT_FLAGS=device=cuda-interpret).")


class NoDeviceError(RuntimeError):
    """device='cuda' was asked for where CuPy is missing or finds no CUDA device."""


def cupy():
    """Return the cupy module, or raise NoDeviceError saying how to get it."""
    try:
        import cupy as module
    except ImportError as exc:
        raise NoDeviceError(f"device='cuda' needs CuPy, which is not installed ({exc}).\n{HINT}") from None
    return module


@functools.lru_cache(maxsize=None)
def _device_problem():
    """Return why no CUDA device can be used here ('' when one can); asked once per process."""
    try:
        module = cupy()
    except NoDeviceError as exc:
        return str(exc).split("\n")[0]
    try:
        count = module.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001  (CUDARuntimeError, or a missing libcuda: both mean "no device")
        return f"CuPy finds no CUDA device ({type(exc).__name__}: {exc})"
    return "" if count > 0 else "CuPy finds no CUDA device (0 devices)"


def has_device() -> bool:
    """True when CuPy is installed and finds a CUDA device."""
    return not _device_problem()


def require_device():
    """Raise NoDeviceError, naming what is missing and suggesting cuda-interpret, unless a device is here."""
    problem = _device_problem()
    if problem:
        raise NoDeviceError(f"device='cuda': {problem}.\n{HINT}")


@functools.lru_cache(maxsize=None)  # every allocation asks: a dict lookup after the first
def dtype_of(typenum):
    """Return the numpy dtype of a numpy type number (NPY_FLOAT32 -> float32)."""
    for char in np.typecodes["All"] + "?":
        dtype = np.dtype(char)
        if dtype.num == typenum:
            return dtype
    raise ValueError(f"no numpy dtype has type number {typenum}")


def empty(shape, typenum):
    """Return an uninitialised CuPy array of `shape` (a tuple) and numpy type number `typenum` (CuPy's pool)."""
    return cupy().empty(tuple(shape), dtype=dtype_of(typenum))


def zeros(shape, typenum):
    """Return a zero-filled CuPy array of `shape` and numpy type number `typenum` (CuPy's pool)."""
    return cupy().zeros(tuple(shape), dtype=dtype_of(typenum))


def current_stream() -> int:
    """Return the pointer (CUstream) of CuPy's current stream: kernels run on it (0: the legacy default)."""
    return int(cupy().cuda.get_current_stream().ptr)


_BINARIES: dict = {}  # module key -> (cubin bytes, PTX text): what this process compiled
_MODULES: dict = {}  # (device id, module key) -> cupy.cuda.function.Module, kept for the process
_LOCK = _thread.allocate_lock()  # threading.Lock(), without importing threading


def register_kernel_binary(module_key, cubin, ptx=None):
    """Remember the compiled kernels of `module_key` (the generator calls it after compiling them)."""
    with _LOCK:
        _BINARIES[module_key] = (cubin, ptx)


def _binary(module_key):
    """The kernels of `module_key`: this process's, else the compile cache's (a module a fresh process loaded from
    the cache)."""
    found = _BINARIES.get(module_key)
    return found if found is not None else kernel_binary(module_key)


def kernel_function(module_key: str, kernel_name: str) -> int:
    """Return the CUfunction (an int) of `kernel_name` in the kernels of `module_key`, loading them once.

    The cubin is loaded by CuPy; if the driver refuses it (another architecture), the PTX is loaded
    instead and compiled by the driver for the current device."""
    module = cupy()
    device = module.cuda.runtime.getDevice()
    with _LOCK:
        loaded = _MODULES.get((device, module_key))
    if loaded is None:
        cubin, ptx = _binary(module_key)
        loaded = module.cuda.function.Module()
        try:
            loaded.load(bytes(cubin))
        except Exception:  # noqa: BLE001  (no binary for this GPU: the PTX fallback)
            if not ptx:
                raise
            loaded = module.cuda.function.Module()
            loaded.load((ptx if isinstance(ptx, bytes) else ptx.encode()) + b"\0")
        with _LOCK:
            loaded = _MODULES.setdefault((device, module_key), loaded)
    return int(loaded.get_function(kernel_name).ptr)


def as_cupy(value):
    """Return `value` as a CuPy array without a copy: a CuPy array, or an object with
    ``__cuda_array_interface__`` or ``__dlpack__`` (torch, JAX)."""
    module = cupy()
    if isinstance(value, module.ndarray):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return module.asarray(value)
    if hasattr(value, "__dlpack__"):
        return module.from_dlpack(value)
    raise TypeError(f"{type(value).__name__} is not a GPU array")

"""What GPU tests share: `needs_gpu` skips a test only where CuPy finds no CUDA device; `DEVICES` are the devices
that can run a test here ("cuda-interpret", opkit's CPU interpreter, always; "cuda" where CuPy finds one)."""

import pytest

from opkit.gpu.runtime import has_device

NO_DEVICE = "CuPy finds no CUDA device"

needs_gpu = pytest.mark.skipif(not has_device(), reason=NO_DEVICE)

DEVICES = ["cuda-interpret", pytest.param("cuda", marks=needs_gpu)]


def on_device(device, value):
    """Return the numpy array `value` as a GPU value of `device` (CuPy on cuda, numpy interpreted)."""
    if device == "cuda":
        import cupy

        return cupy.asarray(value)
    return value


def to_numpy(value):
    """Return a GPU value (CuPy or numpy) as numpy."""
    get = getattr(value, "get", None)
    return get() if callable(get) and hasattr(value, "__cuda_array_interface__") else value


# Fixtures: a test file imports them by name (`from tests.helpers.gpu import device`). They are not in a
# tests/gpu/conftest.py: pytest imports every conftest outside a package as the module `conftest`, and the
# suite's test files import `ROOT` from tests/conftest.py by that name.

@pytest.fixture(params=DEVICES)
def device(request):
    """The device a test runs on: "cuda-interpret" here; "cuda" too on a machine with a GPU."""
    return request.param


@pytest.fixture
def interpret():
    """The interpreter's device name, for tests that run only through it."""
    return "cuda-interpret"

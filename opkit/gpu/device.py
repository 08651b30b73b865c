"""Which device a function is made for: "cpu" (default), "cuda" or "cuda-interpret".

The device of a function comes from its Mode (``Mode(device=...)``) or, where the mode names none, from
``config.device`` (also ``OPKIT_FLAGS=device=...``). While a function is rewritten and compiled, the device
is set for the current thread (``using_device``); GPU types and GPU ops read it with ``current_device()``
when they write their C (the interpreter's module is another module, with another key, than the GPU's).
"""

from __future__ import annotations

import contextlib
import contextvars

DEVICES = ("cpu", "cuda", "cuda-interpret")
INTERPRET = "cuda-interpret"

_current = contextvars.ContextVar("opkit_gpu_device", default=None)


def check_device(device, what="device"):
    """Return `device` if it is one of DEVICES, else raise ValueError naming the valid ones."""
    if device not in DEVICES:
        raise ValueError(f"{what}={device!r} is not one of {', '.join(map(repr, DEVICES))} "
                         "(cuda-interpret runs CUDA kernels on the CPU, for tests without a GPU)")
    return device


def current_device() -> str:
    """Return the device being compiled for in this thread: the one set by using_device, else config.device."""
    device = _current.get()
    if device is not None:
        return device
    from opkit.config import config

    return config.device


def interpreting() -> bool:
    """True when GPU values are numpy arrays and kernels run on the CPU (device "cuda-interpret")."""
    return current_device() == INTERPRET


@contextlib.contextmanager
def using_device(device):
    """Set the device of this thread (and of tasks started from it) for the `with` block."""
    token = _current.set(check_device(device))
    try:
        yield device
    finally:
        _current.reset(token)


class _OnDevice:
    """A function's runner that runs with its device set (the interpreter's values are numpy arrays, which
    the checks made while it runs, DebugMode's among them, must know); other attributes are the runner's."""

    __slots__ = ("runner", "device")

    def __init__(self, runner, device):
        self.runner, self.device = runner, device

    def __call__(self, *args, **kwargs):
        token = _current.set(self.device)
        try:
            return self.runner(*args, **kwargs)
        finally:
            _current.reset(token)

    def __getattr__(self, name):
        return getattr(self.runner, name)


def on_device(runner, device):
    """Return `runner` running with `device` set, where that changes what a GPU value is (the interpreter):
    on "cuda" (and "cpu") GPU values are CuPy's whatever the context, and the runner is returned as it is."""
    return _OnDevice(runner, device) if device == INTERPRET else runner

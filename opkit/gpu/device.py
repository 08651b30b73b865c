"""Which device a function is made for: "cpu" (default), "cuda" or "cuda-interpret", and each one's target.

The device of a function comes from its Mode (``Mode(device=...)``) or, where the mode names none, from
``config.device`` (also ``OPKIT_FLAGS=device=...``). opkit.function chooses the device's target once
(`target_for`: an opkit.cop.generate.target.Target, made here for each device) and rewrites, places and
compiles the function under it (``using_device``, or ``using_target`` with the target); GPU types and GPU
ops read it with ``current_device()``, and code generation asks the target what a GPU node's module holds
(the interpreter's module is another module, with another key, than the GPU's).

A target's GPU kernels are rendered (the interpreter) or compiled and loaded (NVRTC, the runtime) by
opkit.gpu.kernel_hooks, loaded by the first GPU node whose code is generated: a CPU function never loads it.
"""

from __future__ import annotations

from opkit.cop.generate.target import (Target, current_target, register_target, reset_target, set_target,
                                       using_target)
from opkit.gpu.interpret import INTERPRET_MACRO

DEVICES = ("cpu", "cuda", "cuda-interpret")
INTERPRET = "cuda-interpret"


def _kernel_hooks():
    """Return what renders, compiles and loads the GPU targets' kernels (opkit.gpu.kernel_hooks)."""
    # lazy: the one door to the kernel toolchain (build-only: sections, NVRTC, the kernel cache), off the warm path
    from opkit.gpu import kernel_hooks

    return kernel_hooks


# One target per device. A "cpu" function's GPU nodes (a user's to_gpu) run on the GPU, as a "cuda" one's do.
TARGETS = {device: register_target(Target(device, interprets=device == INTERPRET, hooks=_kernel_hooks,
                                          compile_args=[f"-D{INTERPRET_MACRO}"] if device == INTERPRET else []))
           for device in DEVICES}


def check_device(device, what="device"):
    """Return `device` if it is one of DEVICES, else raise ValueError naming the valid ones."""
    if device not in DEVICES:
        raise ValueError(f"{what}={device!r} is not one of {', '.join(map(repr, DEVICES))} "
                         "(cuda-interpret runs CUDA kernels on the CPU, for tests without a GPU)")
    return device


def target_for(device) -> Target:
    """Return the target of `device` (one of DEVICES)."""
    return TARGETS[check_device(device)]


def current_device() -> str:
    """Return the device being compiled for in this thread: the one set by using_device, else config.device."""
    return current_target().name


def interpreting() -> bool:
    """True when GPU values are numpy arrays and kernels run on the CPU (device "cuda-interpret")."""
    return current_target().interprets


def using_device(device):
    """Set the device (its target) of this thread, and of tasks started from it, for the `with` block."""
    return using_target(target_for(device))


class _OnDevice:
    """A function's runner that runs with its target set (the interpreter's values are numpy arrays, which
    the checks made while it runs, DebugMode's among them, must know); other attributes are the runner's."""

    __slots__ = ("runner", "target")

    def __init__(self, runner, target):
        self.runner, self.target = runner, target

    def __call__(self, *args, **kwargs):
        token = set_target(self.target)
        try:
            return self.runner(*args, **kwargs)
        finally:
            reset_target(token)

    def __getattr__(self, name):
        return getattr(self.runner, name)


def on_device(runner, device):
    """Return `runner` running with `device` (a device's name, or its Target) set, where that changes what a GPU
    value is (the interpreter): on "cuda" (and "cpu") GPU values are CuPy's whatever the context, and the runner
    is returned as it is."""
    target = device if isinstance(device, Target) else target_for(device)
    return _OnDevice(runner, target) if target.interprets else runner

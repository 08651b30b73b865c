"""The target a module is generated for: one object per device, chosen once per function with its backend.

tinygrad's `Device` owns its renderer, compiler and runtime; a `Target` is that object for opkit's code
generation. opkit.decision chooses it once from the function's device, with the backend, and the backend
carries it (`Backend.target`) to the linker; the linker gives it to each region it cuts (`Region.target`), and
generate reads it there: nothing in cop reads a thread's or config's device. A region without GPU values needs
no target (None); one with GPU values and no target is an error that says so, never a guess.

generate asks a target about GPU nodes only (opkit.cop.generate.node_glue): whether it `interprets` (its
kernels are compiled into the host module and run on the CPU: the CUDA interpreter), then either
`render_kernels(node, name)`, the kernels text the host module compiles, or `load_kernels(node, name)`, the key
of the node's kernels compiled apart (NVRTC, or shipped by its package) and handed to the runtime. Modules
holding GPU values get its `compile_args` (the interpreter's macro). The targets and their hooks are opkit.gpu's
(opkit.gpu.device makes them and registers them here): cop never imports opkit.gpu.
"""

from __future__ import annotations

import contextlib
import contextvars

from opkit.config import config


class Target:
    """One device: its `name` ("cpu", "cuda", "cuda-interpret"), whether it `interprets` GPU kernels on the CPU,
    the host module's `compile_args` for GPU values on it, and the hooks of its GPU kernels (`hooks()` returns
    the object whose `render_kernels` and `load_kernels` it calls, loaded where the first GPU node asks)."""

    __slots__ = ("name", "interprets", "compile_args", "_hooks")

    def __init__(self, name: str, *, interprets: bool = False, compile_args=(), hooks=None):
        self.name = name
        self.interprets = bool(interprets)
        self.compile_args = tuple(compile_args)
        self._hooks = hooks

    def render_kernels(self, node, name: str) -> str:
        """Return the node's kernels as the host module named `name`'s node compiles them (a target that
        interprets)."""
        return self._kernel_hooks().render_kernels(node, name)

    def load_kernels(self, node, name: str) -> str:
        """Return the key of the node's kernels, compiled apart and handed to this target's runtime."""
        return self._kernel_hooks().load_kernels(node, name)

    def _kernel_hooks(self):
        if self._hooks is None:
            raise LookupError(f"the target {self.name!r} runs no CUDA kernels")
        return self._hooks()

    def __repr__(self):
        return f"Target({self.name!r})"

    def __reduce__(self):  # one object per device: a pickled function's backend finds it again by name
        return (target_named, (self.name,))


_targets: dict[str, Target] = {}
_current = contextvars.ContextVar("opkit_target", default=None)


def register_target(target: Target) -> Target:
    """Make `target` the one named `target.name` (opkit.gpu.device registers cpu, cuda and cuda-interpret)."""
    _targets[target.name] = target
    return target


def target_named(name: str) -> Target:
    """Return the target registered under `name`; LookupError if none is."""
    try:
        return _targets[name]
    except KeyError:
        raise LookupError(f"no target is named {name!r}: opkit.gpu.device registers the devices' targets "
                          f"(known: {', '.join(sorted(_targets)) or 'none'})") from None


def current_target() -> Target:
    """Return the target of the function being made or run in this thread (`using_target`), else config.device's.

    For the graph and the run (GPU types' values, placement): code generation never calls it (it is given the
    region's target)."""
    target = _current.get()
    return target if target is not None else target_named(config.device)


def set_target(target: Target):
    """Set this thread's target; return the token that `reset_target` takes to undo it."""
    return _current.set(target)


def reset_target(token) -> None:
    """Undo the `set_target` that returned `token`."""
    _current.reset(token)


@contextlib.contextmanager
def using_target(target: Target):
    """Set this thread's target (and that of tasks started from it) for the `with` block."""
    token = _current.set(target)
    try:
        yield target
    finally:
        _current.reset(token)

"""opkit's XLA FFI handler (templates/jax_ffi.cpp): compiled once by opkit, one target per bridged graph.

Each bridged graph (an op's node, its JVP or its VJP, for given input types)
is an opkit compiled function kept in a slot of the handler module for the
life of the process: an XLA executable names the slot, and may live as long.
Its target, ``opkit_graph_<slot>``, is registered with XLA for the CPU.
"""

from __future__ import annotations

import functools
import threading

from opkit.bridge import slot_call
from opkit.cop.compile import compile_generated
from opkit.errors import CompileError, add_note

_lock = threading.Lock()
_targets = {}  # graph key -> (target name, slot)


@functools.lru_cache(maxsize=None)
def handler_module():
    """Return the compiled handler module (register, capsule, nonce), from opkit's compile cache."""
    import jax
    from jax import ffi

    # jax's version is part of the source, so of the module's key: another jaxlib's headers build another module
    generated = slot_call.handler_module("jax_ffi.cpp", f"// jax {jax.__version__}\n", [ffi.include_dir()])
    try:
        return compile_generated(generated, f"opkit's XLA FFI handler (jax {jax.__version__})")
    except CompileError as exc:
        add_note(exc, "while compiling opkit's XLA FFI handler: opkit.bridge.jax runs every op through it, so it "
                     "needs a working C++ compiler (run `opkit doctor`)")
        raise


def graph_target(key, make_function, label):
    """Return (target name, attributes) of the graph `key`; `make_function()` compiles it the first time.

    `make_function()` returns (function, preallocated): the compiled function takes
    numpy arrays (then, if `preallocated`, an array per output for the C code to
    write into) and returns an array or a list of arrays; `label` names the graph
    in the errors the handler raises.
    """
    found = _targets.get(key)
    if found is None:
        handler_module()  # first: without it no graph can run (and its error says so)
        function, preallocated = make_function()
        with _lock:
            found = _targets.get(key)
            if found is None:
                found = _targets[key] = _register(function, label, preallocated)
    name, slot = found
    return name, {"slot": _int64(slot), "nonce": _int64(handler_module().nonce())}


def noop_target():
    """Return the name of the target whose handler does nothing (the benchmark's baseline)."""
    name = "opkit_noop"
    with _lock:
        if name not in _targets:
            from jax import ffi

            ffi.register_ffi_target(name, handler_module().capsule("noop"), platform="cpu")
            _targets[name] = (name, -1)
    return name


def _register(function, label, preallocated):
    from jax import ffi

    module = handler_module()
    slot = module.register(function, label, bool(preallocated))
    name = f"opkit_graph_{slot}"
    ffi.register_ffi_target(name, module.capsule("call"), platform="cpu")
    return name, slot


def _int64(value):
    import numpy as np

    return np.int64(value)

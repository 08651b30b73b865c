"""Slots of compiled opkit graphs that compiled code outside Python calls with raw buffers.

Two handlers share the slot machinery of templates/slot_call.h: opkit's XLA FFI
handler (opkit.bridge.jax_ffi, templates/jax_ffi.cpp) and the raw-buffer handler
here (templates/raw_call.cpp), whose C function ``opkit_raw_call_keyed(key, n_inputs,
n_outputs, desc)`` numba's nopython code calls by its symbol (opkit.bridge.pytensor_numba); the key names
a slot bound in this process (``bind_key``), so numba may cache that code on disk. Each slot holds a compiled
opkit function for the life of the process: compiled code may name the slot as long as it lives.
The raw handler needs no JAX.
"""

from __future__ import annotations

import functools
import pathlib
import threading

from opkit.cop.compile import compile_generated
from opkit.cop.generate.codegen import GeneratedModule
from opkit.cop.generate.templates import TEMPLATES
from opkit.errors import CompileError, add_note

_lock = threading.Lock()
_slots = {}  # graph key -> slot in the raw handler


def handler_module(name: str, prefix: str = "", include_dirs=()):
    """Return the GeneratedModule of the handler template `name` (slot_call.h found beside it in templates/).

    The header is found through the include path, so its bytes are part of the module's identity (its cache key).
    """
    text = pathlib.Path(TEMPLATES, name).read_text(encoding="utf-8")
    return GeneratedModule(prefix + text, include_dirs=[TEMPLATES, *include_dirs])


@functools.lru_cache(maxsize=None)
def raw_module():
    """Return the compiled raw-buffer handler module (register, address, take_error), from opkit's cache."""
    try:
        return compile_generated(handler_module("raw_call.cpp"), "opkit's raw-buffer handler")
    except CompileError as exc:
        add_note(exc, "while compiling opkit's raw-buffer handler: compiled callers (numba) run bridged ops through "
                      "it, so it needs a working C++ compiler (run `opkit doctor`)")
        raise


def raw_slot(key, make_function, label) -> int:
    """Return the raw handler's slot of the graph `key`; `make_function()` compiles it the first time.

    `make_function()` returns (function, preallocated), as for opkit.bridge.jax_ffi.graph_target.
    """
    found = _slots.get(key)
    if found is None:
        module = raw_module()
        function, preallocated = make_function()
        with _lock:
            found = _slots.get(key)
            if found is None:
                found = _slots[key] = module.register(function, label, bool(preallocated))
    return found


def bind_key(key: int, slot: int) -> None:
    """Make ``opkit_raw_call_keyed(key, ...)`` run `slot`: compiled code cached on disk names a graph by a key that
    is the same in every process (numba's cache, opkit.bridge.pytensor_numba), not by this process's slot."""
    raw_module().bind(key, slot)


def raise_last_error():
    """Raise the error of the last failed raw call: the slot's own exception (the handler's text as a note)."""
    taken = raw_module().take_error()
    if taken is None:
        raise RuntimeError("opkit's raw-buffer handler failed without an error (a bug in opkit)")
    exception, text = taken
    if exception is None:
        raise RuntimeError(text)
    label = text.split(": ", 1)[0]
    add_note(exception, f"(raised in {label}, called from compiled code through opkit's raw-buffer handler)")
    raise exception

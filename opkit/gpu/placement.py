"""Placement: the ops that have a GPU version move to the GPU, with transfers only at the edges.

A GPU version is registered per op class with ``register_gpu_version(op_class, make_gpu_node)``;
``make_gpu_node(node, gpu_inputs)`` gets the host node and its inputs already on the GPU
(GpuArrayType variables) and returns a GPU Apply node (or None to keep the node on the host).
"""

from __future__ import annotations

import threading

_REGISTRY: dict = {}
_LOCK = threading.Lock()


def register_gpu_version(op_class, make_gpu_node):
    """Register `make_gpu_node(node, gpu_inputs) -> Apply | None` as the GPU version of `op_class`'s nodes.

    Registering a class again replaces its entry. Usable as a decorator: ``@register_gpu_version(Op)``
    when `make_gpu_node` is left out."""
    if not isinstance(op_class, type):
        raise TypeError(f"register_gpu_version: op_class must be an Op class, not {op_class!r}")
    if not callable(make_gpu_node):
        raise TypeError(f"register_gpu_version: make_gpu_node must be callable, not {make_gpu_node!r}")
    with _LOCK:
        _REGISTRY[op_class] = make_gpu_node
    return make_gpu_node


def gpu_version(op):
    """Return the registered make_gpu_node for `op` (its class or the nearest registered base), or None."""
    for klass in type(op).__mro__:
        found = _REGISTRY.get(klass)
        if found is not None:
            return found
    return None


def registered_gpu_versions():
    """Return a copy of the registry: {op_class: make_gpu_node}."""
    with _LOCK:
        return dict(_REGISTRY)

"""Placement: the ops that have a GPU version move to the GPU, with transfers only at the edges.

A GPU version is registered per op class: by an op package's `register_gpu_versions(register)` hook (opkit's
own, opkit.gpu.ops, through the built-in plugin), asked when a function is first placed on a GPU device, or
directly with ``register_gpu_version(op_class, make_gpu_node)``, which wins over a plugin's for the same class.
``make_gpu_node(node, gpu_inputs)`` gets the host node and its inputs already on the GPU (GpuArrayType
variables) and returns a GPU Apply node (or None to keep the node on the host).
"""

from __future__ import annotations

import _thread

import numpy as np

from opkit.core.builtin_ops import Shape, Shape_i
from opkit.core.graph import Constant
from opkit.core.tensor.types.type import TensorType
from opkit.gpu.device import INTERPRET
from opkit.gpu.runtime import cupy, require_device
from opkit.gpu.transfers import ToGpu, ToHost, _Transfer
from opkit.gpu.types import GpuArrayType

_REGISTRY: dict = {}  # op class -> make_gpu_node, registered directly
_FROM_PLUGINS: dict = {}  # op class -> make_gpu_node, from the plugins' register_gpu_versions hooks
_plugins_asked = False
_LOCK = _thread.allocate_lock()  # threading.Lock(), without importing threading


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
        found = _REGISTRY.get(klass) or _FROM_PLUGINS.get(klass)
        if found is not None:
            return found
    return None


def registered_gpu_versions():
    """Return a copy of the registry: {op_class: make_gpu_node}, the plugins' and the direct ones."""
    with _LOCK:
        return {**_FROM_PLUGINS, **_REGISTRY}


def ask_plugins():
    """Take the GPU versions the plugins register (their `register_gpu_versions` hooks), once per process."""
    global _plugins_asked
    if _plugins_asked:
        return
    # lazy: the plugins (pluggy, entry points) load where a function is first placed on a GPU, not on the warm path
    from opkit.plugins.manager import load_plugins

    versions = load_plugins().gpu_versions
    with _LOCK:
        for op_class, make_gpu_node in versions:
            _FROM_PLUGINS[op_class] = make_gpu_node
        _plugins_asked = True


def place_on_device(fgraph, device):
    """Place `fgraph` (a function's graph, already rewritten) on `device`, in place.

    "cuda" / "cuda-interpret": each node whose op has a GPU version becomes that version, its inputs moved
    to the GPU and its outputs back to the host only where a host op, or the graph's output, reads them;
    to_gpu(to_host(g)) pairs are then gone, so transfers stay at the edges. Every transfer is bound to
    the device (a user's to_gpu runs as the function's device says; "cpu" leaves GPU values on the GPU).
    """
    if device == "cuda":
        require_device()
    if device != "cpu":
        ask_plugins()
        _move_to_gpu(fgraph, device)
    if device != "cpu" or _has_transfers(fgraph):
        _shapes_of_gpu_values(fgraph)
        _remove_round_trips(fgraph)
        if device != "cpu":
            _constants_to_gpu(fgraph, device)
        _bind_transfers(fgraph, "cuda" if device == "cpu" else device)


def _has_transfers(fgraph):
    return any(isinstance(node.op, _Transfer) for node in fgraph.toposort())


def _move_to_gpu(fgraph, device):
    moved = {}  # id(host variable) -> its to_gpu

    def on_gpu(variable):
        if isinstance(variable.type, GpuArrayType):
            return variable
        if variable.owner is not None and isinstance(variable.owner.op, ToHost):
            return variable.owner.inputs[0]
        if id(variable) not in moved:
            moved[id(variable)] = _constant_on(device, variable) if isinstance(variable, Constant) \
                else ToGpu()(variable)
        return moved[id(variable)]

    for node in fgraph.toposort():
        make = None if isinstance(node.op, _Transfer) else gpu_version(node.op)
        if make is None or not all(isinstance(v.type, (TensorType, GpuArrayType)) for v in node.inputs):
            continue
        new = make(node, [on_gpu(v) for v in node.inputs])
        if new is None:
            continue
        _check_gpu_node(node, new, make)
        pairs = []
        for old, out in zip(node.outputs, new.outputs):
            pairs.append((old, ToHost()(out, host_type=old.type)))
        fgraph.replace_all(pairs, "gpu_placement")


def _constants_to_gpu(fgraph, device):
    """Replace to_gpu(constant) (a user's, or a gradient's folded seed) by a GPU constant: one copy, made now."""
    pairs = [(node.outputs[0], _constant_on(device, node.inputs[0])) for node in fgraph.toposort()
             if isinstance(node.op, ToGpu) and isinstance(node.inputs[0], Constant)]
    fgraph.replace_all([(old, new) for old, new in pairs if old.type == new.type], "gpu_constants")


def _constant_on(device, constant):
    """Return a host constant as a GPU constant, its data copied to `device` once, when the function is made
    (not a to_gpu at every call)."""
    data = np.asarray(constant.data)
    if device != INTERPRET:
        data = cupy().asarray(data)
    else:
        data = np.array(data, copy=True)
    return GpuArrayType(constant.type.dtype, constant.type.shape).make_constant(data)


def _check_gpu_node(node, new, make):
    name = getattr(make, "__qualname__", repr(make))
    if len(new.outputs) != len(node.outputs):
        raise TypeError(f"the GPU version {name} of {node.op} made {len(new.outputs)} outputs for "
                        f"{len(node.outputs)}")
    for position, (old, out) in enumerate(zip(node.outputs, new.outputs)):
        if not (isinstance(out.type, GpuArrayType) and out.type.dtype == old.type.dtype
                and out.type.ndim == old.type.ndim):
            raise TypeError(f"the GPU version {name} of {node.op} made output {position} of type {out.type}; "
                            f"expected a GpuArrayType of dtype {old.type.dtype} with {old.type.ndim} dimension(s)")


def _shapes_of_gpu_values(fgraph):
    """Replace Shape(to_host(g)) and Shape_i(to_host(g)) by the shape of g itself: a GPU value's lengths are
    read where it is (host int64 values), not by copying its data to the host."""
    pairs = [(node.outputs[0], node.op(node.inputs[0].owner.inputs[0])) for node in fgraph.toposort()
             if type(node.op) in (Shape, Shape_i) and node.inputs[0].owner is not None
             and isinstance(node.inputs[0].owner.op, ToHost)]
    if pairs:
        fgraph.replace_all(pairs, "gpu_shapes")


def _remove_round_trips(fgraph):
    """Replace to_gpu(to_host(g)) by g and to_host(to_gpu(h)) by h (same types): no transfer in the middle."""
    while True:  # a chain of trips loses one pair a pass (replace_all does not chain its replacements)
        pairs = []
        for node in fgraph.toposort():
            source = node.inputs[0].owner if node.inputs else None
            if source is None:
                continue
            trip = (isinstance(node.op, ToGpu) and isinstance(source.op, ToHost)) or \
                (isinstance(node.op, ToHost) and isinstance(source.op, ToGpu))
            if trip and source.inputs[0].type == node.outputs[0].type:
                pairs.append((node.outputs[0], source.inputs[0]))
        if not pairs:
            return
        fgraph.replace_all(pairs, "gpu_round_trips")


def _bind_transfers(fgraph, device):
    for node in fgraph.toposort():
        if isinstance(node.op, _Transfer) and node.op.device != device:
            node.op = type(node.op)(device)

"""PyTensor's numba backend calls a bridged op's compiled C with no Python frame (``as_pytensor_op``).

For each node of a `PyTensorOp` (the op itself, or one its gradient bridges)
`numba_funcify` returns a nopython function that computes the outputs' shapes
from the op's ``infer_shape`` (an input's dims it hands back are read from the
input; other expressions are translated to PyTensor and compiled by numba),
allocates them (``np.empty``) and calls ``opkit_raw_call_keyed`` by its symbol
with the node's key and each buffer's data pointer, dtype, shape and strides
(opkit.bridge.slot_call). The handler wraps the buffers as numpy arrays, no copy,
and runs the op's one-node module, whose C writes into the outputs. The key (from
the op's Python code identity and the node's types, ``cache_key``) is bound in each
process to the slot of the op's module compiled there, so the compiled code holds
nothing of this process: PyTensor gets the key with the function, and numba caches
the graphs holding the node on disk as it does PyTensor's own (a second function
of the same graph, as ``pm.sample`` compiles, or the next process, loads it).

A node whose output shapes cannot be known before the call (no ``infer_shape``,
or one that does not translate), of an op that writes into its inputs, or with
an input or output that is not a tensor of a dtype numba passes, runs the op's ``perform`` in numba's object mode
instead, as before; the reason is logged (logger ``opkit.bridge.pytensor_numba``).
Registered when PyTensor's numba dispatch is imported (opkit.bridge.pytensor loads this module then: it imports
numba, through opkit.bridge.numba_failure).
"""

from __future__ import annotations

import functools
import logging
import pathlib
import warnings

import numpy as np

import opkit
from opkit.bridge import numba_failure
from opkit.bridge.jax_graphs import tensor_types
from opkit.bridge.slot_call import bind_key, raw_module, raw_slot
from opkit.core.code_identity import python_identity
from opkit.core.digest import sha256
from opkit.link.node_runner import node_runner

logger = logging.getLogger(__name__)

_DISPATCH = "pytensor.link.numba.dispatch.basic"
_KEY_VERSION = 2  # the generated node function's form (its cache key's)
_KEYED_SYMBOL = "opkit_raw_call_keyed"
# dtypes numba's arrays hold (float16 has no numba type)
_NUMBA_DTYPES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float32", "float64", "complex64", "complex128"])


class NotDirect(Exception):
    """Why a node runs in object mode rather than calling the op's C directly."""


def register(bridged_op_class):
    """Register the numba implementation of `bridged_op_class`'s nodes (opkit.bridge.pytensor's PyTensorOp) with
    PyTensor's numba dispatch (imported by now).

    Where PyTensor takes a cache key with the function (PyTensor >= 3.x's ``register_funcify_and_cache_key``),
    a direct node gives one, so numba caches the graphs holding it on disk as it does PyTensor's own.
    """
    from pytensor.link.numba.dispatch import basic

    keyed = getattr(basic, "register_funcify_and_cache_key", None)
    if keyed is None:
        basic.numba_funcify.register(bridged_op_class)(funcify)
    else:
        keyed(bridged_op_class)(funcify_and_cache_key)


def funcify(op, node=None, storage_map=None, **kwargs):
    """Return the nopython function of a bridged node; object mode, with the reason logged, where it cannot."""
    return funcify_and_cache_key(op, node, storage_map, **kwargs)[0]


def funcify_and_cache_key(op, node=None, storage_map=None, **kwargs):
    """Return (the node's function, its numba cache key, or None for object mode, which is not cached)."""
    try:
        return direct_function(op, node), cache_key(op, node)
    except NotDirect as exc:
        logger.warning("%s", exc)
        return object_mode_function(op, node, storage_map, **kwargs), None


def cache_key(op, node) -> str:
    """Return what decides the compiled code of a direct node: the op's Python code identity (its infer_shape, the
    shapes' function), the node's types, and the bridge's code and versions. Not the op's C: the code calls it by
    the key's number, bound in each process to the slot of the op's module compiled there (``_key_number``)."""
    types = tuple((v.type.dtype, v.type.shape) for v in (*node.inputs, *node.outputs))
    return _digest(f"{_bridge_identity()} {python_identity(op.opkit_op)} {types}")


def object_mode_function(op, node, storage_map=None, **kwargs):
    """Return PyTensor's object-mode function running the op's perform, without its warning (the reason is ours)."""
    from pytensor.link.numba.dispatch.basic import generate_fallback_impl

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Numba will use object mode", UserWarning)
        return generate_fallback_impl(op, node, storage_map, **kwargs)


def direct_function(op, node):
    """Return the nopython function of `node` calling the op's C (NotDirect says why it cannot)."""
    where = f"PyTensor's numba backend runs {op} in object mode (about 5 us a call)"
    if op.destroy_map:
        raise NotDirect(f"{where}: it writes into its inputs (destroy_map {op.destroy_map}), and the direct call "
                        "passes them read-only")
    _check_tensors(node, where)
    output_dims = _output_dims(op, node, where)
    signature = tuple((v.type.dtype, v.type.ndim) for v in node.inputs)
    label = f"opkit.bridge.pytensor_numba {op}"

    def make():  # link's one node runner: the op's module writing into the outputs, or its function
        return node_runner(op.opkit_op, tensor_types(signature), preallocated=True, trusted=True, name=label)

    slot = raw_slot(("pytensor_numba", op.opkit_op, python_identity(op.opkit_op), signature), make, label)
    key = _key_number(cache_key(op, node))
    bind_key(key, slot)
    return _nopython(node, key, output_dims, _keyed_call())


def _check_tensors(node, where):
    from pytensor.tensor.type import TensorType

    for kind, variables in (("input", node.inputs), ("output", node.outputs)):
        for i, v in enumerate(variables):
            if not isinstance(v.type, TensorType):
                raise NotDirect(f"{where}: its {kind} {i} is of type {v.type}, not a tensor")
            if v.type.dtype not in _NUMBA_DTYPES:
                raise NotDirect(f"{where}: its {kind} {i} is {v.type.dtype}, which numba's arrays do not hold")


def _output_dims(op, node, where):
    """Return every output's dims as code of the node function's arguments (``i0``, ...), and the nopython function
    of the node's inputs giving them as one int64 vector (``dims``) where they are not all input dims or numbers
    (None where they are: nothing more for numba to compile)."""
    import pytensor.tensor as pt
    from pytensor.graph.fg import FunctionGraph
    from pytensor.link.numba.dispatch.basic import numba_funcify
    from pytensor.tensor.exceptions import ShapeError

    inputs = [v.type() for v in node.inputs]
    shapes = [[x.shape[d] for d in range(x.type.ndim)] for x in inputs]
    try:
        fresh = op.make_node(*inputs)
        out_shapes = op.infer_shape(None, fresh, shapes)
    except (ShapeError, NotImplementedError) as exc:
        raise NotDirect(f"{where}: the shapes of its outputs cannot be known before the call ({exc}); give the "
                        "opkit op an infer_shape that PyTensor can translate") from exc
    flat = [d for shape in out_shapes for d in shape]
    input_dims = {id(d): f"i{k}.shape[{j}]" for k, shape in enumerate(shapes) for j, d in enumerate(shape)}
    code = [input_dims.get(id(d)) if not _is_int(d) else str(int(d)) for d in flat]
    if None not in code:  # infer_shape handed back the input dims it was given (elementwise ops), or numbers
        return code, None
    vector = pt.stack([pt.cast(d, "int64") for d in flat]) if flat else pt.constant(np.zeros(0, dtype="int64"))
    return [f"dims[{i}]" for i in range(len(flat))], numba_funcify(FunctionGraph(inputs, [vector], clone=True))


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _key_number(key: str) -> int:
    """Return the number naming the node's slot in compiled code: 60 bits of its cache key."""
    return int(key[:15], 16)


def _digest(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@functools.lru_cache(maxsize=None)
def _bridge_identity() -> str:
    """The versions and the bridge's own code (these modules' bytes), which the compiled node's code follows."""
    import numba
    import pytensor

    here = pathlib.Path(__file__).resolve().parent
    code = b"".join((here / name).read_bytes() for name in ("pytensor_numba.py", "pytensor.py", "numba_failure.py"))
    return _digest(f"{_KEY_VERSION} {opkit.__version__} {pytensor.__version__} {numba.__version__} "
                   f"{sha256(code).hexdigest()}")


@functools.lru_cache(maxsize=None)
def _keyed_call():
    """Return ``opkit_raw_call_keyed`` as numba's external function, called by its symbol, which numba's cache keeps
    (a ctypes pointer's address is this process's, so numba would not cache code holding one)."""
    import llvmlite.binding
    import numba

    llvmlite.binding.add_symbol(_KEYED_SYMBOL, raw_module().keyed_address())
    # desc is passed as an integer (its address): numba hands nopython code an array's address as one
    return numba.types.ExternalFunction(_KEYED_SYMBOL, numba.int32(numba.int64, numba.int64, numba.int64,
                                                                    numba.int64))


def _nopython(node, key, output_dims, call):
    """Generate and compile the node's nopython function (its arity and dims are the node's)."""
    n_in, n_out = len(node.inputs), len(node.outputs)
    args = [f"i{k}" for k in range(n_in)]
    dims, shape_function = output_dims
    lines = [f"def opkit_node({', '.join(args)}):"]
    if shape_function is not None:
        lines.append(f"    dims = shape_function({', '.join(args)})[0]")
    globals_ = {"np": np, "shape_function": shape_function, "call": call,
                "failed": numba_failure.failed}
    at = 0
    for j, out in enumerate(node.outputs):
        globals_[f"dtype{j}"] = np.dtype(out.type.dtype).type
        shape = "".join(f"{dims[at + d]}, " for d in range(out.type.ndim))
        lines.append(f"    o{j} = np.empty(({shape}), dtype{j})")
        at += out.type.ndim
    buffers = [(f"i{k}", v) for k, v in enumerate(node.inputs)] + [(f"o{j}", v) for j, v in enumerate(node.outputs)]
    size = sum(3 + 2 * v.type.ndim for _, v in buffers)
    lines.append(f"    desc = np.empty({size}, np.int64)")
    at = 0
    for name, v in buffers:
        ndim = v.type.ndim
        lines.append(f"    desc[{at}] = {name}.ctypes.data")
        lines.append(f"    desc[{at + 1}] = {np.dtype(v.type.dtype).num}")
        lines.append(f"    desc[{at + 2}] = {ndim}")
        for d in range(ndim):
            lines.append(f"    desc[{at + 3 + d}] = {name}.shape[{d}]")
            lines.append(f"    desc[{at + 3 + ndim + d}] = {name}.strides[{d}]")
        at += 3 + 2 * ndim
    lines += [f"    if call({key}, {n_in}, {n_out}, desc.ctypes.data) != 0:",
              "        failed()"]
    outputs = [f"o{j}" for j in range(n_out)]
    lines.append(f"    return {outputs[0]}" if n_out == 1 else f"    return ({', '.join(outputs)},)")
    namespace = dict(globals_)
    exec(compile("\n".join(lines) + "\n", f"<opkit numba node {key}>", "exec"), namespace)  # noqa: S102
    from pytensor.link.numba.dispatch.basic import numba_njit

    return numba_njit(namespace["opkit_node"])


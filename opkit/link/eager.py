"""`op.compute(*values)`: run one op on numpy values, compiled once per (op, input types).

The compiled one-node functions are kept in link's one bounded memo of node
runners (opkit.link.node_runner, which compiles them), keyed by (op, its
node's code identity, input types): an op whose `.c` file was edited, then
created again, is equal to the old one by its props but has another identity
(the module cache's content, opkit.link.code_identity), so it runs its new
code. The memo keeps at most COMPILED_LIMIT functions (an op made with a new
parameter value for every call does not grow it without bound). An op with
a ParamsType shares one compiled function among all values of its params
(they are run-time data): a new value rebinds the same module with its
params. The modules live in the compile cache on disk as any other, so another
process loads them rather than compiling.

A warm call costs about a compiled function's call: once this process has a C
call path (templates/fastcall.cpp), each function made here is also entered in
a C dispatcher installed as ``Op.compute`` (a method descriptor: no Python
frame). It serves a call when the op is the very object an entry was made for
(held, so its address is not reused) and every argument is an exact ndarray in
native byte order with the entry's type number and ndim (numeric dtypes only),
then calls the compiled function, whose C check of its inputs stays. Anything
else falls to the Python ``Op.compute``: EAGER_MEMO (by the op's identity, then
(dtype, ndim) per input: the op is never hashed), then `compute` below.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

import numpy as np

from opkit.core.code_identity import class_identity, python_identity
from opkit.core.digest import sha256
from opkit.core.graph import Apply
from opkit.core.op import EAGER_MEMO, install_compute_dispatcher
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.weak import is_weak_number
from opkit.cop.generate.codegen import failure_notes
from opkit.link.code_identity import c_identity, node_identity
from opkit.link.fastcall import loaded_eager_compute_type
from opkit.link.node_runner import COMPILED_LIMIT, compile_node, compiled, compiled_count  # noqa: F401

_compiled = compiled  # (op, code identity, *input types) -> compiled function: link's one memo of node runners
_IDENTITY_LIMIT = 1024
_dtype_and_ndim = attrgetter("dtype", "ndim")
_C_KINDS = frozenset("biufc")
_dispatcher = None  # the C dispatcher installed as Op.compute (opkit.core.op.install_compute_dispatcher)


def compute(op, values):
    """Return `op` applied to `values`: an array, or a list for an op with several outputs.

    Op.compute serves warm calls itself from EAGER_MEMO; this is the first call
    for these input types (or of values that are not arrays).
    """
    if getattr(op, "itypes", None) is None and any(map(is_weak_number, values)):
        return _compute_weak(op, values)
    arrays = [value if isinstance(value, np.ndarray) else np.asarray(value) for value in values]
    return _function(op, arrays, input_types(arrays))(*arrays)


def _compute_weak(op, values):
    """`op` on values some of which are Python numbers: weak constants (NEP 50), as numpy takes them.

    `add.compute(int8_array, 5)` is int8, as np.add gives; the number is part of the node (its
    value is data: the module is the same for every number of one dtype), compiled for this call.
    """
    arrays = [np.asarray(v) for v in values if not is_weak_number(v)]
    fresh = iter([TensorType(a.dtype, (None,) * a.ndim)(f"x{i}") for i, a in enumerate(arrays)])
    inputs, node = _node(op, arrays, [v if is_weak_number(v) else next(fresh) for v in values])
    return _compile(op, inputs, node)(*arrays)


def input_types(values) -> tuple:
    """Return (dtype, ndim, dtype, ndim, ...) of `values`: the key of their types (AttributeError if not arrays)."""
    return tuple(chain.from_iterable(map(_dtype_and_ndim, values)))


def _function(op, arrays, types):
    """Return the compiled function of `op` on `types`: from _compiled, else compiled now (and kept)."""
    entry = EAGER_MEMO.get(id(op))
    if entry is not None and types in entry[1]:  # this op, values converted to arrays (Python numbers)
        return entry[1][types]
    inputs, node = _node(op, arrays)
    try:
        hash(op)
    except TypeError:  # an op that cannot be hashed is compiled for this call only
        return _compile(op, inputs, node)
    shared_key = _params_free_key(op, node, types)
    function = None
    if shared_key is not None:  # a params op: one compiled function serves every value of its params
        found = _compiled.get(shared_key)
        if found is not None:
            function = found[1] if found[0] == op else _rebound(found[1], found[0], op)
    if function is None:
        key = (op, node_identity(node), *types)
        function = _compiled.get(key)
        if function is None:
            function = _compile(op, inputs, node)
            if shared_key is not None and _rebindable(function, op):
                _compiled[shared_key] = (op, function)
            else:
                _compiled[key] = function
    if id(op) not in EAGER_MEMO and len(EAGER_MEMO) >= _IDENTITY_LIMIT:
        EAGER_MEMO.clear()  # a memo only: ops made afresh for every call must not pile up
        if _dispatcher:
            _dispatcher._clear()
    EAGER_MEMO.setdefault(id(op), (op, {}))[1][types] = function  # keeps op alive: its id is not reused
    _register_in_c(op, types, function)
    return function


def _register_in_c(op, types, function):
    """Let the C dispatcher (Op.compute, once installed) serve `op` on arrays of `types` with `function`."""
    global _dispatcher
    signature = c_signature(types)
    if signature is None:
        return
    if _dispatcher is None:
        dispatcher_type = loaded_eager_compute_type()
        if dispatcher_type is None:  # no C call path in this process (PyFunction): Python serves compute
            return
        _dispatcher = install_compute_dispatcher(dispatcher_type)
    _dispatcher._register(op, signature, function)


def c_signature(types):
    """Return ((typenum, ndim), ...) for a (dtype, ndim, dtype, ndim, ...) key, or None.

    None unless every dtype is a native numeric one (bool, ints, floats, complex):
    for those the type number and the byte order are the whole dtype, which is what
    the C dispatcher checks (the Python memo serves every other dtype).
    """
    signature = []
    for dtype, ndim in zip(types[::2], types[1::2]):
        if dtype.kind not in _C_KINDS or not dtype.isnative or dtype.isbuiltin != 1 or dtype.metadata:
            return None
        signature.append((dtype.num, ndim))
    return tuple(signature)


def _params_free_key(op, node, types):
    """Return the key of `op`'s function less its params' values (None for an op without a ParamsType).

    It holds the op's class's code, its attributes other than the params' fields
    and the C content of its node: params are run-time data, not code.
    """
    fields = getattr(getattr(op, "params_type", None), "fields", None)
    if not fields:
        return None
    others = {name: value for name, value in vars(op).items() if name not in fields}
    code = sha256(c_identity(node).encode("utf-8", "surrogatepass")).hexdigest()
    return ("params", type(op), class_identity(type(op)), python_identity(others), code, *types)


def _rebindable(function, op):
    region = getattr(function.maker.linker, "single_region", None)
    return (region is not None and region.module is not None and not region.shared and function.profile is None
            and sum(node.op is op for node in region.nodes) == 1)


def _rebound(function, old, new):
    """Return `function` (compiled for the params op `old`) running with the params of `new`: same module."""
    region = function.maker.linker.single_region
    params = [(new if node.op is old else node.op).node_params(node) for node in region.nodes
              if getattr(node.op, "params_type", None) is not None]
    notes = tuple(note.replace(str(old), str(new)) for note in failure_notes(region))
    runner = region.module.make(notes, *[constant.data for constant in region.constants], *params)
    made = type(function)(function.maker, runner, function._single)
    made.name, made.profile, made.trust_input = f"{new}.compute", None, function.trust_input
    return made


def _node(op, arrays, operands=None):
    """Return (inputs, node): `op` applied to fresh variables typed like `arrays`.

    `operands` (variables and weak Python numbers, see _compute_weak) replaces them when given.
    """
    itypes = getattr(op, "itypes", None)  # as_op ops name their input types
    if operands is not None:
        inputs = [o for o in operands if not is_weak_number(o)]
    elif itypes is not None and len(itypes) == len(arrays):
        operands = inputs = [itype(f"x{i}") for i, itype in enumerate(itypes)]
    else:
        operands = inputs = [TensorType(array.dtype, (None,) * array.ndim)(f"x{i}") for i, array in enumerate(arrays)]
    try:
        node = op.make_node(*operands)
    except (TypeError, ValueError) as exc:
        described = ", ".join(repr(v) if is_weak_number(v) else str(v.type) for v in operands)
        raise TypeError(f"{op}.compute: the op does not take inputs of types ({described}): {exc}") from exc
    if not isinstance(node, Apply):
        raise TypeError(f"{op}.make_node returned {node!r}, not an opkit.Apply")
    return inputs, node


def _compile(op, inputs, node):
    """Return the compiled function of `node` (`op` on `inputs`): link's one node runner's compile."""
    return compile_node(inputs, node, f"{op}.compute", single=True)

"""`op.compute(*values)`: run one op on numpy values, compiled once per (op, input types).

The compiled one-node functions are kept in a dict keyed by (op, input types);
their modules live in the compile cache on disk as any other, so another
process loads them rather than compiling. A warm call, served by Op.compute
from opkit.core.op.EAGER_MEMO, costs two dict lookups (by the op's identity,
then by a (dtype, ndim) per input: the op is never hashed) and the compiled
function's call, whose C check of its inputs stays.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

import numpy as np

from opkit.core.op import EAGER_MEMO
from opkit.core.tensor.weak import is_weak_number

_compiled: dict = {}  # (op, *input types) -> compiled function: equal ops share
_IDENTITY_LIMIT = 4096
_dtype_and_ndim = attrgetter("dtype", "ndim")


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
    from opkit.core.tensor.type import TensorType

    arrays = [np.asarray(v) for v in values if not is_weak_number(v)]
    inputs = iter([TensorType(a.dtype, (None,) * a.ndim)(f"x{i}") for i, a in enumerate(arrays)])
    operands = [v if is_weak_number(v) else next(inputs) for v in values]
    return _compile(op, operands, [o for o in operands if not is_weak_number(o)])(*arrays)


def input_types(values) -> tuple:
    """Return (dtype, ndim, dtype, ndim, ...) of `values`: the key of their types (AttributeError if not arrays)."""
    return tuple(chain.from_iterable(map(_dtype_and_ndim, values)))


def _function(op, arrays, types):
    """Return the compiled function of `op` on `types`: from _compiled, else compiled now (and kept)."""
    try:
        key = (op, *types)
        function = _compiled.get(key)
    except TypeError:  # an op that cannot be hashed is compiled for this call only
        return _compile(op, arrays)
    if function is None:
        function = _compiled[key] = _compile(op, arrays)
    if id(op) not in EAGER_MEMO and len(EAGER_MEMO) >= _IDENTITY_LIMIT:
        EAGER_MEMO.clear()  # a memo only: ops made afresh for every call must not pile up
    EAGER_MEMO.setdefault(id(op), (op, {}))[1][types] = function  # keeps op alive: its id is not reused
    return function


def _compile(op, arrays, variables=None):
    """Return the compiled function of one `op` node on inputs typed like `arrays`.

    With `variables` (the function's inputs), `arrays` are the operands themselves:
    those variables and weak Python numbers.
    """
    from opkit.core.graph import Apply
    from opkit.core.tensor.type import TensorType
    from opkit.link.function import function

    itypes = getattr(op, "itypes", None)  # as_op ops name their input types
    if variables is not None:
        operands, inputs = arrays, variables
    elif itypes is not None and len(itypes) == len(arrays):
        operands = inputs = [itype(f"x{i}") for i, itype in enumerate(itypes)]
    else:
        operands = inputs = [TensorType(array.dtype, (None,) * array.ndim)(f"x{i}") for i, array in enumerate(arrays)]
    try:
        node = op.make_node(*operands)
    except (TypeError, ValueError) as exc:
        described = ", ".join(repr(v) if is_weak_number(v) else str(v.type) for v in operands)
        raise TypeError(f"{op}.compute: the op does not take inputs of types ({described}): {exc}") from None
    if not isinstance(node, Apply):
        raise TypeError(f"{op}.make_node returned {node!r}, not an opkit.Apply")
    outputs = list(node.outputs)
    return function(inputs, outputs[0] if len(outputs) == 1 else outputs, name=f"{op}.compute",
                    on_unused_input="ignore")


def compiled_count() -> int:
    """Return how many (op, input types) this process has compiled for `compute`."""
    return len(_compiled)

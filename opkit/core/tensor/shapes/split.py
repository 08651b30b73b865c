"""split, horizontal_stack, vertical_stack and stacklists: PyTensor's, as slices of x and a Concatenate.

No op of their own: their C is Subtensor's views and Concatenate's.
"""

from __future__ import annotations

import numpy as np

from opkit.core.graph import Variable
from opkit.core.tensor.shapes.alloc import cast, shape_dims
from opkit.core.tensor.shapes.axes import normalize_axis
from opkit.core.tensor.shapes.join import concatenate, stack
from opkit.core.tensor.shapes.subtensor import subtensor
from opkit.core.tensor.types.shape_checks import check_chain, depend
from opkit.core.tensor.types.variable import as_tensor_variable, constant


def split(x, splits_size, n_splits=None, axis=0):
    """Return `x` cut along `axis` into consecutive pieces of the lengths `splits_size` (PyTensor's split).

    The lengths must be nonnegative and add up to the axis's length, checked when the graph runs.
    """
    x = as_tensor_variable(x)
    if x.ndim == 0:
        raise ValueError(f"split: x must have at least one dimension, got the 0-d {x}")
    axis = normalize_axis(axis, x.ndim, "split")
    if isinstance(splits_size, Variable):
        if splits_size.ndim != 1 or np.dtype(splits_size.dtype).kind not in "iu":
            raise TypeError(f"split: splits_size must be a vector of integers, got {splits_size} of type "
                            f"{splits_size.type}")
        length = splits_size.type.shape[0] if n_splits is None else n_splits
        if length is None:
            raise ValueError(f"split: the length of {splits_size} is not known when the graph is built; pass n_splits=")
        sizes = [splits_size[i] for i in range(length)]
    else:
        sizes = [constant(np.int64(s)) if isinstance(s, (int, np.integer)) else as_tensor_variable(s)
                 for s in splits_size]
        if n_splits is not None and n_splits != len(sizes):
            raise ValueError(f"split: n_splits={n_splits} but splits_size has {len(sizes)} entries")
    for s in sizes:
        if s.ndim != 0 or np.dtype(s.dtype).kind not in "iu":
            raise TypeError(f"split: splits_size must hold integers, got {s} of type {s.type}")
    sizes = [_checked(cast(s, "int64"), [("ValueError", f"split: the split sizes must be nonnegative, got {{}} "
                                         f"(split {i})", "ge", cast(s, "int64"), 0, (s,))])
             for i, s in enumerate(sizes)]
    total = constant(np.int64(0))
    for s in sizes:
        total = total + s
    dim = shape_dims(x)[axis]
    total = _checked(total, [("ValueError", f"split: the split sizes add up to {{}}, not the length {{}} of axis "
                              f"{axis}", "eq", total, dim, (total, dim))])
    # Every bound is computed after the checks (an index input: the gradient to x does not pass through it).
    pieces, start = [], depend(constant(np.int64(0)), total)
    for s in sizes:
        stop = start + s
        pieces.append(subtensor(x, (slice(None),) * axis + (slice(start, stop),)))
        start = stop
    return pieces


def _checked(value, checks):
    """`value` (an int64 scalar) as the Assert of `checks` returns it, or itself when constants satisfy them."""
    checked = check_chain(checks)
    return value if checked is None else checked


def _matrices(args, what):
    if len(args) < 2:
        raise ValueError(f"{what}: too few arguments (give two matrices or more)")
    matrices = [as_tensor_variable(a) for a in args]
    if any(m.ndim != 2 for m in matrices):
        raise ValueError(f"{what}: all arguments must have two dimensions, got "
                         f"{', '.join(f'{m.ndim}-d' for m in matrices)}")
    return matrices


def horizontal_stack(*args):
    """Return the matrices joined column-wise (PyTensor's; numpy.hstack of matrices)."""
    return concatenate(_matrices(args, "horizontal_stack"), axis=1)


def vertical_stack(*args):
    """Return the matrices joined row-wise (PyTensor's; numpy.vstack of matrices)."""
    return concatenate(_matrices(args, "vertical_stack"), axis=0)


def stacklists(arg):
    """Return nested lists of tensors stacked into one tensor, the lists' nesting as its first axes (PyTensor's)."""
    if isinstance(arg, (list, tuple)):
        return stack([stacklists(item) for item in arg])
    return as_tensor_variable(arg)


__all__ = ["horizontal_stack", "split", "stacklists", "vertical_stack"]

"""Where backpropagation starts: the cost's seed, known_grads and eval points, made gradients of the right type.

opkit.core.gradient's grad, Lop and Rop take these values from users; a wrong number of dimensions
or a non-float dtype is refused here with a message that names the argument.
"""

from __future__ import annotations

from opkit.core.gradient_types import DisconnectedType, NullType
from opkit.core.graph import Variable
from opkit.core.tensor.shapes.alloc import cast, float_dtype, is_float_dtype
from opkit.core.tensor.shapes.fill import fill, fill_like
from opkit.core.tensor.types.variable import constant


def seed_gradients(cost, known_grads):
    """Return {variable: gradient} to start from: 1 for the cost, then `known_grads`."""
    if cost is None and not known_grads:
        raise TypeError("grad needs a cost, or known_grads when cost is None")
    seeds = {}
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"grad: cost must be an opkit Variable, got {cost!r}")
        ndim = getattr(cost.type, "ndim", 0)
        if ndim != 0 and not known_grads:
            raise TypeError(f"grad: cost must be a scalar (0-d), but {cost} has {ndim} dimensions.\n"
                            "Hint: reduce it first (cost.sum()), or pass known_grads for a vector-Jacobian product.")
        seeds[cost] = ones_like(cost)
    for variable, gradient in known_grads.items():
        seeds[variable] = as_point(variable, gradient, f"known_grads[{variable}]", broadcast=True)
    return seeds


def broadcasts(value, variable):
    """Return True if `value`'s type says it has length 1 on an axis where `variable` may be longer."""
    have, want = getattr(value.type, "shape", ()), getattr(variable.type, "shape", ())
    return any(h == 1 and w != 1 for h, w in zip(have, want))


def as_point(variable, value, label, broadcast=False):
    """Return `value` as a gradient or eval point for `variable` (arrays become constants).

    With `broadcast` (gradients: known_grads, Lop's eval points) a `value` with fewer
    dimensions is broadcast to `variable`'s shape, numpy's way, as PyTensor's grad does;
    so is any `value` whose type has length 1 where `variable`'s may be longer (else the
    gradient would keep that length). A value whose runtime shape differs from
    `variable`'s but whose type does not say so is not checked.
    """
    if not isinstance(value, Variable):
        dtype = getattr(variable.type, "dtype", None)
        value = constant(value, dtype=float_dtype(dtype)) if dtype else variable.type.make_constant(value)
    if isinstance(value.type, (NullType, DisconnectedType)):
        return value
    want, got = getattr(variable.type, "ndim", None), getattr(value.type, "ndim", None)
    if want is not None and got is not None and want != got and not (broadcast and got < want):
        hint = (f"\nHint: give it at most {want} dimensions; fewer are broadcast to {variable}'s shape."
                if broadcast else f"\nHint: give it {want} dimensions, the shape of {variable}.")
        raise ValueError(f"{label} has {got} dimensions but {variable} has {want}{hint}")
    if hasattr(value.type, "dtype") and not is_float(value):
        raise TypeError(f"{label} has dtype {value.type.dtype}; gradients and eval points must be float")
    if want is not None and got is not None and (got < want or broadcasts(value, variable)):
        value = fill(variable, value)
    if is_float(variable) and value.type.dtype != variable.type.dtype:
        value = cast(value, variable.type.dtype)
    return value


def is_float(variable):
    """Return True for a variable with a float dtype."""
    dtype = getattr(variable.type, "dtype", None)
    return dtype is not None and is_float_dtype(dtype)


def ones_like(variable):
    """Return float ones shaped like `variable` that depend on it in the graph (the seed ``fill(cost, 1)``)."""
    own = getattr(variable.type, "fill_like", None)  # a type whose values are not host tensors (a GPU array)
    if own is not None:
        return own(variable, 1, float_dtype(variable.type.dtype))
    if hasattr(variable.type, "dtype"):
        return fill_like(variable, 1, float_dtype(variable.type.dtype))
    return variable.type.make_constant(1.0)


def zero_gradient(variable):
    """Return float zeros shaped like `variable`, depending on it as PyTensor's ``zeros_like``."""
    own = getattr(variable.type, "fill_like", None)
    if own is not None:
        return own(variable, 0, float_dtype(variable.type.dtype))
    if hasattr(variable.type, "dtype"):
        return fill_like(variable, 0, float_dtype(variable.type.dtype))
    return variable.type.make_constant(0.0)

"""pytensor.tensor.basic: the tensor functions, opkit.tensor's; ``fill`` is opkit's Fill op (``fill(model, value)``:
`value` broadcast to `model`'s shape, what a zero gradient is built from)."""

from opkit.compat.pytensor.tensor._namespace import *  # noqa: F403
from opkit.compat.pytensor.tensor._namespace import __all__ as _names
from opkit.core.tensor.shapes.fill import _fill as fill
from opkit.tensor import as_tensor_variable

__all__ = [*_names, "fill"]

# Helpers PyTensor's op modules import from tensor.basic (the constant-value search is Theano's, constants.py).
from opkit.compat.pytensor.tensor.shape import shape_padleft, shape_padright  # noqa: E402
from opkit.compat.theano.tensor.basic import get_vector_length, second, tensor_copy  # noqa: E402
from opkit.core.tensor.types.constant_value import get_scalar_constant_value as _constant_value  # noqa: E402
from opkit.core.tensor.types.constant_value import NotScalarConstantError as _NotConstant  # noqa: E402
from opkit.core.tensor.shapes.scalar_tensor import scalar_from_tensor  # noqa: E402
from opkit.core.tensor.shapes.shape_ops import MakeVector  # noqa: E402


def get_underlying_scalar_constant_value(v, *, elemwise=True, only_process_constants=False, max_recur=10,
                                         raise_not_constant=True):
    """Return the constant scalar `v` always equals; without `raise_not_constant`, `v` itself when it is none."""
    try:
        return _constant_value(v, elemwise, only_process_constants, max_recur)
    except _NotConstant:
        if raise_not_constant:
            raise
        return v


def get_scalar_constant_value(v, elemwise=True, only_process_constants=False, max_recur=10, raise_not_constant=True):
    """PyTensor's: as get_underlying_scalar_constant_value, for a 0-d `v` (a TypeError otherwise)."""
    if getattr(v, "ndim", 0) != 0:
        raise TypeError(f"get_scalar_constant_value can only be applied to scalars, not {v} of {v.ndim} dimension(s)")
    return get_underlying_scalar_constant_value(v, elemwise=elemwise, only_process_constants=only_process_constants,
                                                max_recur=max_recur, raise_not_constant=raise_not_constant)


def expand_dims(a, axis):
    """Return `a` with length-1 axes inserted at `axis` (an int or a sequence, positions in the result)."""
    a = as_tensor_variable(a)
    axes = [axis] if isinstance(axis, int) else list(axis)
    ndim = a.ndim + len(axes)
    axes = sorted(x % ndim if -ndim <= x < ndim else _axis_error(x, ndim) for x in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    source = iter(range(a.ndim))
    return a.dimshuffle(["x" if position in axes else next(source) for position in range(ndim)])


def _axis_error(axis, ndim):
    raise IndexError(f"axis {axis} is out of bounds for array of dimension {ndim}")


__all__ += ["MakeVector", "expand_dims", "get_scalar_constant_value", "get_underlying_scalar_constant_value",
            "get_vector_length", "scalar_from_tensor", "second", "shape_padleft", "shape_padright", "tensor_copy"]


# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",))

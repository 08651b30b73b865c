"""The one upward edge of opkit.core.tensor's layers: what a tensor's operators and methods build.

``x + y``, ``x.sum()``, ``x[0]``, ``x.reshape(...)`` build ops of later layers (elementwise, shapes,
reductions), and the gradient registry loads the last layer (gradients). The first layer cannot import
them, so every such use goes through here: ``find(name)`` resolves a name in the later layer that
defines it on first use (each import below is function-level and marked), then serves it from a dict.

core's own modules below the tensor layers reach them here too: ScalarType's operators and conversions
(opkit.core.scalar_tensor builds the 0-d tensor ops) and Shape/Shape_i, whose results are tensors.
tests/core/test_layering.py allows upward imports in this module only (FACADE there), and its check
for import circles in opkit leaves out this module's imports.
"""

from __future__ import annotations


def _basic():
    from opkit.core.tensor.elementwise import basic  # later layer: x + y, x.dot(y) build elementwise ops and Dot

    return basic


def _elemwise_math():
    from opkit.core.tensor.elementwise import elemwise_math  # later layer: abs(x), x // y build elementwise ops

    return elemwise_math


def _elemwise_elementary():
    # later layer: x.tan(), x.log2(), x.conj() build elementwise ops
    from opkit.core.tensor.elementwise import elemwise_elementary

    return elemwise_elementary


def _logic():
    from opkit.core.tensor.elementwise import logic  # later layer: x < y, x & y build elementwise ops

    return logic


def _elemwise():
    from opkit.core.tensor.elementwise import elemwise  # later layer: a scalar op applied to arrays (Elemwise)

    return elemwise


def _alloc():
    from opkit.core.tensor.shapes import alloc  # later layer: x.astype(), x.T, x.zeros_like() build shape ops

    return alloc


def _shape_ops():
    from opkit.core.tensor.shapes import shape_ops  # later layer: x.shape, x[i] build shape and index ops

    return shape_ops


def _reshape():
    from opkit.core.tensor.shapes import reshape  # later layer: x.reshape(), x.flatten() build Reshape

    return reshape


def _inc_subtensor():
    from opkit.core.tensor.shapes import inc_subtensor  # later layer: x[i].set(y), x[i].inc(y) build IncSubtensor

    return inc_subtensor


def _specify_shape():
    from opkit.core.tensor.shapes import specify_shape  # later layer: a type's filter_variable adds SpecifyShape

    return specify_shape


def _axes():
    from opkit.core.tensor.shapes import axes  # later layer: x.squeeze(), x.ravel(), x.swapaxes() build DimShuffle...

    return axes


def _diagonal():
    from opkit.core.tensor.shapes import diagonal  # later layer: x.diagonal(), x.trace() build ExtractDiag

    return diagonal


def _repeat_take():
    from opkit.core.tensor.shapes import repeat_take  # later layer: x.repeat(), x.take() build Repeat, Take

    return repeat_take


def _nonzero():
    from opkit.core.tensor.shapes import nonzero  # later layer: x.nonzero() builds MaskNonzero

    return nonzero


def _fill():
    from opkit.core.tensor.shapes import fill  # later layer: x.fill(value) builds Fill

    return fill


def _type():
    from opkit.core.tensor.types import type as type_module  # TensorType, for core's Shape ops and ScalarType

    return type_module


def _scalar_tensor():
    # later layer: a scalar variable's operators and its conversion to and from a 0-d tensor build tensor ops
    from opkit.core import scalar_tensor

    return scalar_tensor


def _reduction():
    from opkit.core.tensor.reductions import reduction  # later layer: x.sum(), x.max() build reductions

    return reduction



def _statistics():
    from opkit.core.tensor.reductions import statistics  # later layer: x.std(), x.var(), x.ptp()

    return statistics


def _sort():
    from opkit.core.tensor.sorting import sort  # later layer: x.sort(), x.argsort()

    return sort


def _cumulative():
    from opkit.core.tensor.sorting import cumulative  # later layer: x.cumsum(), x.cumprod()

    return cumulative


def _searching():
    from opkit.core.tensor.sorting import searching  # later layer: x.searchsorted(v)

    return searching


def _constants():
    # not a tensor layer: x.get_scalar_constant_value() is Theano's search for a constant value (opkit.compat's)
    from opkit.compat.theano.tensor import constants

    return constants


def _matmul():
    from opkit.core.tensor.products import matmul  # later layer: x @ y

    return matmul


# the module (of a later layer) that defines each name, as the function that imports it
HOMES = {
    _basic: ("add", "sub", "mul", "true_div", "pow", "neg", "dot", "exp", "log", "sqrt"),
    _elemwise_math: ("int_div", "mod", "abs", "ceil", "clip", "cos", "expm1", "floor", "log1p", "round", "sin",
                     "tanh"),
    _elemwise_elementary: ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "conj", "cosh", "deg2rad",
                           "exp2", "log10", "log2", "rad2deg", "round_half_away_from_zero", "round_half_to_even",
                           "sinh", "tan", "trunc"),
    _logic: ("lt", "le", "gt", "ge", "eq", "neq", "and_", "or_", "xor", "invert"),
    _elemwise: ("Elemwise",),
    _alloc: ("DimShuffle", "transpose", "cast", "zeros_like", "ones_like"),
    _shape_ops: ("shape", "getitem"),
    _reshape: ("reshape", "flatten"),
    _inc_subtensor: ("set_subtensor", "inc_subtensor"),
    _specify_shape: ("specify_shape",),
    _axes: ("squeeze", "ravel", "swapaxes", "matrix_transpose"),
    _diagonal: ("diagonal", "trace"),
    _repeat_take: ("repeat", "take", "choose"),
    _fill: ("fill",),
    _nonzero: ("nonzero", "nonzero_values", "compress"),
    _reduction: ("sum", "prod", "max", "min", "mean", "argmax", "argmin"),
    _statistics: ("std", "var", "ptp"),
    _sort: ("sort", "argsort"),
    _cumulative: ("cumsum", "cumprod"),
    _searching: ("searchsorted",),
    _constants: ("get_scalar_constant_value",),
    _matmul: ("matmul",),
    _type: ("TensorType",),
    _scalar_tensor: ("apply_operator", "scalar_from_tensor", "tensor_from_scalar"),
}
_HOME_OF = {name: home for home, names in HOMES.items() for name in names}
_FOUND: dict = {}


def find(name):
    """Return the function or class `name` of the later layer that defines it (see HOMES)."""
    try:
        return _FOUND[name]
    except KeyError:
        pass
    try:
        home = _HOME_OF[name]
    except KeyError:
        raise AttributeError(f"opkit.core.tensor.types.operators has no later-layer name {name!r}") from None
    value = _FOUND[name] = getattr(home(), name)
    return value


def load_gradients():
    """Import the gradient layer: its modules register the gradient rules (opkit.core.gradient_registry)."""
    # later layer: the gradient rules, which register themselves when imported
    from opkit.core.tensor.gradients import (advanced_grad, elemwise_grad, elemwise_math_grad,  # noqa: F401
                                             reduce_grad, shape_grad)

"""cumsum and cumprod: running sums and products along an axis (CumOp), with numpy's result dtype.

numpy's dtype, not PyTensor's (which keeps the input's): bool and signed integers narrower than int64
accumulate in int64, unsigned ones in uint64 (wrapping as numpy's), floats in their own dtype, each lane
summed in order as numpy.add.accumulate. `axis=None` runs over the flattened tensor. The gradients are
PyTensor's: cumsum's is the reversed cumsum of the reversed output gradient; cumprod's is
cumsum((cumprod(x) * g) reversed) reversed / x (undefined where x is 0). C: sort_support.c and
cumulative.c; float16 and complex inputs run numpy in perform.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.graph import Apply
from opkit.core.params_type import ParamsType
from opkit.core.scalar_type import SCALAR_TYPES
from opkit.core.tensor.shapes.alloc import cast, float_zeros_like, is_float_dtype
from opkit.core.tensor.sorting.sort import lane_axis
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable

MODES = ("add", "mul")


@functools.lru_cache(maxsize=None)
def cum_params():
    """CumOp's params type (axis, multiply), made on first compile."""
    return ParamsType(axis=SCALAR_TYPES["int64"], multiply=SCALAR_TYPES["int64"])


@functools.lru_cache(maxsize=None)
def cum_dtype(dtype):
    """Return numpy's dtype of cumsum (and cumprod) of an array of `dtype`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(np.cumsum(np.zeros(1, dtype=dtype)).dtype)


class CumOp(SectionOp):
    """The running sum (mode 'add') or product ('mul') of x along the non-negative `axis`."""

    __props__ = ("axis", "mode")
    section_files = ("sort_support.c", "cumulative.c")

    @property
    def params_type(self):
        return cum_params()

    @property
    def multiply(self):
        return int(self.mode == "mul")

    def __init__(self, axis, mode="add"):
        if mode not in MODES:
            raise ValueError(f"CumOp: mode must be 'add' or 'mul', got {mode!r}")
        self.axis = int(axis)
        self.mode = mode

    def make_node(self, x):
        x = as_tensor_variable(x)
        if x.ndim == 0 or not 0 <= self.axis < x.ndim:
            raise np.exceptions.AxisError(self.axis, x.ndim, msg_prefix=f"{self} of a {x.ndim}-d tensor")
        return Apply(self, [x], [TensorType(cum_dtype(x.dtype), x.type.shape)()])

    def perform(self, node, inputs, output_storage, params=None):
        accumulate = np.cumprod if self.mode == "mul" else np.cumsum
        output_storage[0][0] = np.asarray(accumulate(inputs[0], axis=self.axis), dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def shape_checks(self, node, input_shapes):
        return []  # no shape makes a scan fail

    def has_c_code(self, node):
        kind = np.dtype(node.inputs[0].dtype).kind
        return (kind in "biu" or node.inputs[0].dtype in ("float32", "float64")) and super().has_c_code(node)

    def c_code_cache_version(self):
        return (1, *super().c_code_cache_version())

    def L_op(self, inputs, outputs, output_grads):
        x, = inputs
        g, = output_grads
        if not is_float_dtype(x.dtype):
            return [float_zeros_like(x)]
        flip = tuple(slice(None, None, -1) if a == self.axis else slice(None) for a in range(x.ndim))
        if self.mode == "add":
            return [cast(CumOp(self.axis)(g[flip])[flip], x.dtype)]
        return [cast(CumOp(self.axis)((outputs[0] * g)[flip])[flip] / x, x.dtype)]

    def grad(self, inputs, output_grads):
        return self.L_op(inputs, [self(*inputs)], output_grads)

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        if self.mode == "add":
            return [self(eval_points[0])]
        raise NotImplementedError("cumprod has no R_op in opkit; use Lop")

    def __str__(self):
        return f"{'Cumprod' if self.mode == 'mul' else 'Cumsum'}{{axis={self.axis}}}"


def cumsum(x, axis=None):
    """Return the running sum of `x` along `axis` (None: the flattened tensor), numpy's dtype."""
    x, axis = lane_axis(x, axis, "cumsum")
    return CumOp(axis, "add")(x)


def cumprod(x, axis=None):
    """Return the running product of `x` along `axis` (None: the flattened tensor), numpy's dtype."""
    x, axis = lane_axis(x, axis, "cumprod")
    return CumOp(axis, "mul")(x)

"""Reductions over axes: sum, prod, max, min, mean (C loops) and argmax, argmin (perform).

Each follows numpy: the result dtype (sum and prod of bool and small integers
accumulate in int64/uint64, the mean of integers is float64, max and min keep
the dtype, argmax is int64), the axis rules (None, an int, a negative int, a
tuple; out of range raises numpy's AxisError, a repeated axis ValueError) and
the errors of an empty reduction (max of a 0-size axis raises ValueError).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from opkit.core.c_source import SectionOp
from opkit.core.gradient_registry import registered
from opkit.core.graph import Apply
from opkit.core.tensor.shapes.alloc import float_zeros_like
from opkit.core.tensor.types.shape_checks import check_chain, nonempty_checks
from opkit.core.tensor.types.type import TensorType
from opkit.core.tensor.types.variable import as_tensor_variable
from opkit.core.tensor.reductions.reduction_c import reduce_has_c
from opkit.core.tensor.reductions.reduction_c import reduce_c_code
from opkit.core.tensor.reductions.reduction_arg_c import arg_has_c
from opkit.core.tensor.reductions.reduction_arg_c import arg_c_code

KINDS = ("sum", "prod", "max", "min", "mean")


def normalize_axis(axis, ndim, what="reduction"):
    """Return `axis` (None, an int or a sequence of ints) as a sorted tuple of non-negative axes.

    Raises numpy's AxisError (a ValueError and an IndexError) for an axis out of
    range, ValueError for a repeated axis and TypeError for a non-integer.
    """
    if axis is None:
        return tuple(range(ndim))
    given = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = []
    for a in given:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{what}: axis must be None, an integer or a tuple of integers, got {axis!r}")
        if not -ndim <= int(a) < ndim:
            raise np.exceptions.AxisError(int(a), ndim, msg_prefix=f"{what} of a {ndim}-d tensor")
        axes.append(int(a) % ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{what}: axis {axis!r} names an axis twice (duplicate value in 'axis'); "
                         "list each axis once")
    return tuple(sorted(axes))


def reduced_shape(shape, axes, keepdims):
    """Return `shape` with `axes` removed (or set to 1 with keepdims)."""
    if keepdims:
        return tuple(1 if a in axes else s for a, s in enumerate(shape))
    return tuple(s for a, s in enumerate(shape) if a not in axes)


@functools.lru_cache(maxsize=None)
def result_dtype(kind, dtype):
    """Return numpy's result dtype of reduction `kind` over an array of `dtype`."""
    sample = np.zeros(1, dtype=dtype)
    if kind in ("max", "min"):
        return str(sample.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(getattr(np, kind)(sample).dtype)


def numpy_reduction(kind, x, axes, keepdims):
    """numpy's reduction `kind` of `x` (the mean of an empty slice is nan without a warning)."""
    if kind == "mean":
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.mean(x, axis=axes, keepdims=keepdims)
    return getattr(np, kind)(x, axis=axes, keepdims=keepdims)


class Reduce(SectionOp):
    """A reduction `kind` of one input over `axis` (None: every axis), as numpy computes it.

    Subclasses Sum, Prod, Max, Min and Mean fix the kind. `axis` is kept as
    given (sorted); make_node checks it against the input's ndim.
    """

    # the elementwise files too: a fused reduction computes elementwise programs
    section_files = ("../elementwise/broadcast.c", "../elementwise/elemwise.c", "../elementwise/scalar_math.c", "../elementwise/scalar_logic.c",
                     "../scalars/scalar_special.c", "reduction.c")

    __props__ = ("kind", "axis", "keepdims")
    kind = "sum"

    def __init__(self, axis=None, keepdims=False, kind=None):
        if kind is not None:
            if kind not in KINDS:
                raise ValueError(f"unknown reduction {kind!r}; choose one of {', '.join(KINDS)}")
            self.kind = kind
        if axis is not None:
            axis = tuple(sorted(int(a) for a in (axis if isinstance(axis, (tuple, list)) else [axis])))
        self.axis = axis
        self.keepdims = bool(keepdims)

    def _axes(self, ndim):
        return normalize_axis(self.axis, ndim, self.kind)

    def make_node(self, x):
        x = as_tensor_variable(x)
        shape = reduced_shape(x.type.shape, self._axes(x.ndim), self.keepdims)
        return Apply(self, [x], [TensorType(result_dtype(self.kind, x.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        x, = inputs
        result = numpy_reduction(self.kind, x, self._axes(x.ndim), self.keepdims)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].dtype)

    def infer_shape(self, node, input_shapes):
        return [reduced_shape(input_shapes[0], self._axes(len(input_shapes[0])), self.keepdims)]

    def shape_checks(self, node, input_shapes):
        return [check_chain(self._empty_checks(input_shapes[0]))]

    def _empty_checks(self, dims):
        """max and min of an empty axis raise numpy's ValueError (sum, prod and mean have an identity)."""
        if self.kind not in ("max", "min"):
            return []
        ufunc = "maximum" if self.kind == "max" else "minimum"
        return nonempty_checks([dims[a] for a in self._axes(len(dims))],
                               f"zero-size array to reduction operation {ufunc} which has no identity")

    # a reduction's gradient broadcasts back: gradients/reduce_grad.py registers it
    grad = registered("grad")
    L_op = registered("L_op")

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        if self.kind in ("sum", "mean"):
            return [self(eval_points[0])]
        raise NotImplementedError(f"{self} has no R_op (the Jacobian times a vector of {self.kind}); "
                                  "use Lop, which every reduction supports")

    # C code: see opkit.core.tensor.reductions.reduction_c.
    def reduce_program(self, node):
        """Return (program, n_inputs) of the elementwise value reduced: here the input itself."""
        return (), 1

    def has_c_code(self, node):
        return reduce_has_c(self, node)

    def c_compile_args(self, c_compiler=None):
        # numpy rounds every operation: never contract a multiply and an add into one rounding.
        return [*super().c_compile_args(c_compiler), "-ffp-contract=off"]

    def c_code(self, node, name, inputs, outputs, sub):
        return reduce_c_code(self, node, inputs, outputs, sub)

    def c_code_cache_version(self):
        return (3,)

    def __str__(self):
        return f"{self.kind.capitalize()}{{axis={self.axis}, keepdims={self.keepdims}}}"


class Sum(Reduce):
    """Sum over `axis` (None: all axes), in numpy's accumulator dtype."""

    kind = "sum"


class Prod(Reduce):
    """Product over `axis` (None: all axes), in numpy's accumulator dtype."""

    kind = "prod"


class Max(Reduce):
    """Maximum over `axis`; NaN propagates; an empty reduction raises ValueError."""

    kind = "max"


class Min(Reduce):
    """Minimum over `axis`; NaN propagates; an empty reduction raises ValueError."""

    kind = "min"


class Mean(Reduce):
    """Mean over `axis`: float64 for integer inputs; nan over an empty axis."""

    kind = "mean"


class Argmax(SectionOp):
    """Index of the first maximum over `axis` (several axes: over their flattened product), int64."""

    section_files = ("../elementwise/broadcast.c", "../elementwise/elemwise.c", "reduction.c")

    __props__ = ("axis", "keepdims")
    numpy_function = staticmethod(np.argmax)
    kind = "argmax"

    def __init__(self, axis=None, keepdims=False):
        if axis is not None:
            axis = tuple(sorted(int(a) for a in (axis if isinstance(axis, (tuple, list)) else [axis])))
        self.axis = axis
        self.keepdims = bool(keepdims)

    def _axes(self, ndim):
        return normalize_axis(self.axis, ndim, self.kind)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if np.dtype(x.dtype).kind == "c":
            raise TypeError(f"{self.kind} of complex {x} is not defined: complex numbers have no order")
        shape = reduced_shape(x.type.shape, self._axes(x.ndim), self.keepdims)
        return Apply(self, [x], [TensorType("int64", shape)()])

    def perform(self, node, inputs, output_storage):
        x, = inputs
        axes = self._axes(x.ndim)
        kept = [a for a in range(x.ndim) if a not in axes]
        moved = np.transpose(x, kept + list(axes))
        # the reduced length spelled out: numpy cannot deduce a -1 in an empty array
        flat = moved.reshape(moved.shape[:len(kept)] + (int(np.prod([x.shape[a] for a in axes])),))
        result = self.numpy_function(flat, axis=-1)
        if self.keepdims:
            result = result.reshape(reduced_shape(x.shape, axes, True))
        output_storage[0][0] = np.asarray(result, dtype="int64")

    def infer_shape(self, node, input_shapes):
        return [reduced_shape(input_shapes[0], self._axes(len(input_shapes[0])), self.keepdims)]

    def shape_checks(self, node, input_shapes):
        dims = input_shapes[0]
        return [check_chain(nonempty_checks([dims[a] for a in self._axes(len(dims))],
                                            f"attempt to get {self.kind} of an empty sequence"))]

    # C code: see opkit.core.tensor.reductions.reduction_arg_c.
    def has_c_code(self, node):
        return arg_has_c(self, node)

    def c_code(self, node, name, inputs, outputs, sub):
        return arg_c_code(self, node, inputs, outputs, sub)

    def c_code_cache_version(self):
        return (1,)

    def grad(self, inputs, output_grads):
        # As PyTensor: an index has no derivative; the input gets a zero gradient.
        return [float_zeros_like(inputs[0])]

    def __str__(self):
        return f"{self.kind.capitalize()}{{axis={self.axis}, keepdims={self.keepdims}}}"


class Argmin(Argmax):
    """Index of the first minimum over `axis`, int64."""

    numpy_function = staticmethod(np.argmin)
    kind = "argmin"


def _reduce(op_class, kind, x, axis, keepdims):
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, kind)
    return op_class(None if axis is None else axes, keepdims)(x)


def sum(x, axis=None, keepdims=False):
    """Return the sum of `x` over `axis` (None: every axis), in numpy's accumulator dtype."""
    return _reduce(Sum, "sum", x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Return the product of `x` over `axis` (None: every axis), in numpy's accumulator dtype."""
    return _reduce(Prod, "prod", x, axis, keepdims)


def max(x, axis=None, keepdims=False):
    """Return the maximum of `x` over `axis` (None: every axis); NaN propagates."""
    return _reduce(Max, "max", x, axis, keepdims)


def min(x, axis=None, keepdims=False):
    """Return the minimum of `x` over `axis` (None: every axis); NaN propagates."""
    return _reduce(Min, "min", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """Return the mean of `x` over `axis` (None: every axis); float64 for integer `x`."""
    return _reduce(Mean, "mean", x, axis, keepdims)


def argmax(x, axis=None, keepdims=False):
    """Return the int64 index of the first maximum of `x` over `axis` (None: the flattened array)."""
    return _reduce(Argmax, "argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """Return the int64 index of the first minimum of `x` over `axis` (None: the flattened array)."""
    return _reduce(Argmin, "argmin", x, axis, keepdims)

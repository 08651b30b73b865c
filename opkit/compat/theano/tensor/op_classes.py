"""Theano's op classes of theano.tensor, as factories of opkit's nodes.

A gradient or helper graph written for Theano calls these classes directly: ``T.Join()(axis, a, b)``,
``T.Split(n)(x, axis, splits)``, ``T.Nonzero()(a)``. Each class here is a thin Op whose ``make_node`` takes
Theano's arguments and returns the node opkit's function builds for them (as PyTensor's SortOp does in
opkit.core.tensor.sorting.searching): the node in the graph is opkit's (Concatenate, Subtensor, Reshape...),
so these classes are never a node's op. Where opkit's function gives back a variable that is not the only
output of a new node (an input unchanged, a constant), the node is a view of it.

MaxAndArgmax and Split give several outputs of several opkit nodes: calling the op gives them as Theano's does
(a list); their ``make_node`` raises, there being no one node to return. ``Choose`` is opkit's own op
(Theano's signature: ``Choose(mode)(a, choices)``); ``join_`` is ``Join()`` and ``default``/``setdefault``
are ``Default()``, as in Theano.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

import opkit.tensor as _ot
from opkit.config import config
from opkit.compat.theano.tensor.broadcasting import patternbroadcast
from opkit.core.tensor.types.constant_value import NotScalarConstantError, get_scalar_constant_value
from opkit.core.builtin_ops import view_op
from opkit.core.graph import Variable
from opkit.core.op import Op
from opkit.core.tensor.shapes.repeat_take import Choose


def _node_of(out, inputs=()):
    """The node whose only output is `out`: its owner when opkit just built it, else a view of `out`."""
    owner = out.owner
    if owner is None or len(owner.outputs) != 1 or any(out is i for i in inputs):
        return view_op.make_node(out)
    return owner


def _constant_int(value, what, name):
    """`value` (an int, an integer numpy scalar or an integer constant) as an int, else a TypeError."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what}: {name} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Variable) and np.dtype(getattr(value, "dtype", "float64")).kind in "iu":
        try:
            return int(get_scalar_constant_value(value))
        except NotScalarConstantError:
            pass
    raise TypeError(f"{what}: {name} must be an integer known when the graph is built (an int or an integer "
                    f"constant), got {value!r}")


class _Factory(Op):
    """A Theano op class whose calls build opkit's nodes (never a node's op itself)."""

    default_output = None

    def perform(self, node, inputs, output_storage):  # pragma: no cover - never a node's op
        raise NotImplementedError(f"{self} builds opkit's nodes; it is never a node's op")


class _MultiFactory(_Factory):
    """A factory of several outputs built by several opkit nodes: calling it gives them, as Theano's op does."""

    def outputs(self, *inputs):
        raise NotImplementedError

    def __call__(self, *inputs, name=None, return_list=False, **kwargs):
        outs = list(self.outputs(*inputs, **kwargs))
        if name is not None:
            for i, out in enumerate(outs):
                out.name = f"{name}_{i}" if len(outs) > 1 else name
        return outs if return_list or len(outs) != 1 else outs[0]

    def make_node(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: its outputs are built by several of opkit's nodes, so "
                                  f"there is no one node to return; call the op, {type(self).__name__}(...)(...), "
                                  "for the list of outputs")


class Join(_Factory):
    """Theano's Join(view=-1)(axis, *tensors): opkit's concatenate(tensors, axis) (a Concatenate node)."""

    __props__ = ("view",)

    def __init__(self, view=-1):
        self.view = int(view)

    def make_node(self, *axis_and_tensors):
        if not axis_and_tensors:
            raise TypeError("Join: the first argument is the axis, followed by the tensors to join")
        axis, tensors = axis_and_tensors[0], axis_and_tensors[1:]
        if not tensors:
            raise ValueError("Cannot join an empty list of tensors")
        tensors = [_ot.as_tensor_variable(t) for t in tensors]
        if not all(t.ndim for t in tensors):
            raise TypeError("Join cannot handle arguments of dimension 0. For joining scalar values, see @stack")
        return _node_of(_ot.concatenate(tensors, axis=_constant_int(axis, "Join", "axis")), tensors)


class Split(_MultiFactory):
    """Theano's Split(len_splits)(x, axis, splits): the `len_splits` pieces of `x` along `axis` (opkit's split;
    the lengths `splits` are an integer vector, checked to sum to the axis' length when run)."""

    __props__ = ("len_splits",)

    def __init__(self, len_splits):
        self.len_splits = int(len_splits)

    def __str__(self):
        return f"Split{{{self.len_splits}}}"

    def outputs(self, x, axis, splits):
        x, splits = _ot.as_tensor_variable(x), _ot.as_tensor_variable(splits)
        if splits.ndim != 1 or np.dtype(splits.dtype).kind not in "iu":
            raise TypeError(f"Split: splits must be an integer vector (tensor.lvector), got {splits.type}")
        return _ot.split(x, splits, self.len_splits, axis=_constant_int(axis, "Split", "axis"))


class Flatten(_Factory):
    """Theano's Flatten(outdim=1)(x) (deprecated there for flatten): `x` with its leading outdim - 1 axes kept
    and the rest flattened into one (opkit's flatten, a Reshape)."""

    __props__ = ("outdim",)

    def __init__(self, outdim=1):
        self.outdim = int(outdim)

    def __str__(self):
        return f"Flatten{{{self.outdim}}}"

    def make_node(self, x):
        x = _ot.as_tensor_variable(x)
        if self.outdim < 1 or (x.ndim and self.outdim > x.ndim):
            raise ValueError(f"invalid output ndimensions ({self.outdim}) for tensor of rank {x.ndim}")
        return _node_of(_ot.flatten(x, self.outdim), [x])


class Tile(_Factory):
    """Theano's Tile(ndim)(x, reps) (deprecated there for tile): numpy.tile(x, reps) of `ndim` dimensions. A
    symbolic `reps` is taken to be of length `ndim` (checked when run), as Theano's Tile's output rank says."""

    __props__ = ("ndim",)

    def __init__(self, ndim):
        self.ndim = int(ndim)

    def __str__(self):
        return f"Tile{{ndim={self.ndim}}}"

    def make_node(self, x, reps):
        x = _ot.as_tensor_variable(x)
        if self.ndim < x.ndim:
            raise ValueError(f"Tile: ndim={self.ndim} is less than the rank of {x} ({x.ndim}); numpy.tile keeps "
                             "every axis of its input")
        if isinstance(reps, (list, tuple)) and not any(isinstance(r, Variable) for r in reps):
            if max(len(reps), x.ndim) != self.ndim:
                raise ValueError(f"Tile: reps {tuple(reps)} tile {x} into {max(len(reps), x.ndim)} dimensions, "
                                 f"not ndim={self.ndim}")
        else:
            reps = _ot.as_tensor_variable(reps)
            if reps.ndim != 1 or np.dtype(reps.dtype).kind not in "iu":
                raise TypeError(f"Tile: reps must be an integer vector, got {reps.type}")
            if reps.type.shape[0] is None:
                reps = _ot.specify_shape(reps, (self.ndim,))
            elif reps.type.shape[0] != self.ndim:
                raise ValueError(f"Tile: reps of length {reps.type.shape[0]}, not ndim={self.ndim}")
        return _node_of(_ot.tile(x, reps), [x])


class Tri(_Factory):
    """Theano's Tri(dtype=floatX)(N, M, k): numpy.tri(N, M, k, dtype) (opkit's tri)."""

    __props__ = ("dtype",)

    def __init__(self, dtype=None):
        self.dtype = str(np.dtype(config.floatX if dtype is None else dtype))

    def make_node(self, N, M, k):
        return _node_of(_ot.tri(N, M, k, dtype=self.dtype))


class Nonzero(_Factory):
    """Theano's Nonzero()(a): the indices of a's nonzero elements as an int64 matrix of shape (a.ndim, count)
    (numpy.nonzero's arrays stacked; opkit's nonzero(a, return_matrix=True))."""

    __props__ = ()

    def make_node(self, a):
        a = _ot.as_tensor_variable(a)
        if a.ndim == 0:
            raise ValueError("Nonzero only supports non-scalar arrays.")
        return _node_of(_ot.nonzero(a, return_matrix=True), [a])


class PermuteRowElements(_Factory):
    """Theano's PermuteRowElements()(x, y, inverse): each row of `x` permuted by `y` (its inverse permutation
    when `inverse` is true); opkit's permute_row_elements."""

    __props__ = ()

    def make_node(self, x, y, inverse):
        if isinstance(inverse, Variable):
            inverse = _constant_int(inverse, "PermuteRowElements", "inverse")
        elif not isinstance(inverse, (bool, np.bool_, int, np.integer)):
            raise TypeError(f"PermuteRowElements: inverse must be a bool or an integer, got {inverse!r}")
        x, y = _ot.as_tensor_variable(x), _ot.as_tensor_variable(y)
        return _node_of(_ot.permute_row_elements(x, y, inverse=bool(inverse)), [x])


class AllocEmpty(_Factory):
    """Theano's AllocEmpty(dtype)(*shape): an array of `shape` whose values are not to be read (opkit's empty)."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        if not isinstance(dtype, str):
            raise TypeError(f"AllocEmpty: dtype must be a string, got {dtype!r}")
        self.dtype = str(np.dtype(dtype.lower()))

    def make_node(self, *shape):
        lengths = [_ot.as_tensor_variable(s) for s in shape]
        for s in lengths:
            if s.ndim != 0 or np.dtype(s.dtype).kind not in "iu":
                raise TypeError(f"AllocEmpty: each length must be an integer scalar, got {s.type}")
        return _node_of(_ot.empty(tuple(shape), dtype=self.dtype))


class Rebroadcast(_Factory):
    """Theano's Rebroadcast(*(axis, flag))(x): `x` with the broadcastable flag of each axis given; a flag True
    is a static length of 1, checked when run (opkit's patternbroadcast)."""

    __props__ = ("axis",)

    def __init__(self, *axis):
        self.axis = OrderedDict(sorted(axis))
        for ax, broad in self.axis.items():
            if not isinstance(ax, (int, np.integer)) or isinstance(ax, (bool, np.bool_)):
                raise TypeError(f"Rebroadcast needs integer axes. Got {ax}")
            if not isinstance(broad, (bool, np.bool_)):
                raise TypeError(f"Rebroadcast needs bool for new broadcast pattern. Got {broad}")

    def __hash__(self):
        return hash((type(self), tuple(self.axis.items())))

    def __str__(self):
        pattern = ["?"] * (1 + max(self.axis)) if self.axis else []
        for ax, broad in self.axis.items():
            pattern[ax] = str(int(broad))
        return f"Rebroadcast{{{','.join(pattern)}}}"

    def make_node(self, x):
        x = _ot.as_tensor_variable(x)
        if self.axis and x.ndim <= max(self.axis):
            raise ValueError("Trying to rebroadcast non-existent dimension")
        pattern = [bool(self.axis.get(i, b)) for i, b in enumerate(x.type.broadcastable)]
        return _node_of(patternbroadcast(x, pattern), [x])


class DiffOp(_Factory):
    """Theano's DiffOp(n=1, axis=-1)(x): numpy.diff(x, n, axis) (opkit's diff: a graph of subtractions)."""

    __props__ = ("n", "axis")

    def __init__(self, n=1, axis=-1):
        self.n, self.axis = int(n), int(axis)
        if self.n < 0:
            raise ValueError(f"order must be non-negative but got {self.n}")

    def make_node(self, x):
        x = _ot.as_tensor_variable(x)
        if not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"DiffOp: axis {self.axis} is out of bounds for {x} of {x.ndim} dimension(s)")
        return _node_of(_ot.diff(x, n=self.n, axis=self.axis), [x])


class Default(_Factory):
    """Theano's Default()(x, default): `x`, or `default` where x's value is None. opkit's tensor inputs are
    never None, so the node is a view of `x`; the two must have the same type, as in Theano."""

    __props__ = ()

    def make_node(self, x, default):
        x, default = _ot.as_tensor_variable(x), _ot.as_tensor_variable(default)
        if x.type != default.type:
            raise TypeError(f"Both default() arguments must have same type, got {x.type} and {default.type}")
        return view_op.make_node(x)


class MaxAndArgmax(_MultiFactory):
    """Theano's MaxAndArgmax(axis)(x): [max(x, axis), argmax(x, axis)], the argmax an int64 index into the
    reduced axes flattened in order (opkit's Max and Argmax nodes). `axis` is a list of axes (Theano's), an
    int, or None for every axis."""

    __props__ = ("axis",)

    def __init__(self, axis):
        if axis is not None and not isinstance(axis, (list, tuple, int, np.integer)):
            raise TypeError(f"MaxAndArgmax: axis must be a list of integers, got {axis!r}")
        self.axis = None if axis is None else tuple(int(a) for a in np.atleast_1d(axis))

    def outputs(self, x):
        x = _ot.as_tensor_variable(x)
        axes = range(x.ndim) if self.axis is None else self.axis
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise ValueError(f"MaxAndArgmax: axis {a} is out of bounds for {x} of {x.ndim} dimension(s)")
        axes = tuple(sorted({a % x.ndim for a in axes}))
        return [_ot.max(x, axis=axes), _ot.argmax(x, axis=axes)]


default = Default()
setdefault = default  # Theano's legacy name
join_ = Join()

__all__ = ["AllocEmpty", "Choose", "Default", "DiffOp", "Flatten", "Join", "MaxAndArgmax", "Nonzero",
           "PermuteRowElements", "Rebroadcast", "Split", "Tile", "Tri", "default", "join_", "setdefault"]

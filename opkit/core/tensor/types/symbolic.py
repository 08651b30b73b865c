"""TensorVariable and TensorConstant: symbolic arrays with numpy-like operators.

Their operators and methods build ops of later layers, found through types/operators.py (the layers' one
upward edge). Converting a value to one of them (constant, as_tensor_variable) is opkit.core.tensor.types.variable.
"""

from __future__ import annotations

from opkit.core.graph import Constant, Variable
from opkit.core.tensor.types.operators import find  # the later layers' ops, found on first use
from opkit.core.builtin_ops import deep_copy_op


class _TensorOperators:
    """Arithmetic operators shared by tensor variables and constants.

    Each builds an op of a later layer of opkit.core.tensor, found by name through the layers' one
    upward edge, opkit.core.tensor.types.operators.find.
    """

    # numpy arrays defer to these operators (``np.arange(3) * x`` is ``x.__rmul__``), as PyTensor's
    # TensorVariable makes them, instead of applying the operator to each element into an object array.
    __array_priority__ = 1000

    def __add__(self, other):
        return find("add")(self, other)

    def __radd__(self, other):
        return find("add")(other, self)

    def __sub__(self, other):
        return find("sub")(self, other)

    def __rsub__(self, other):
        return find("sub")(other, self)

    def __mul__(self, other):
        return find("mul")(self, other)

    def __rmul__(self, other):
        return find("mul")(other, self)

    def __truediv__(self, other):
        return find("true_div")(self, other)

    def __rtruediv__(self, other):
        return find("true_div")(other, self)

    def __floordiv__(self, other):
        return find("int_div")(self, other)

    def __rfloordiv__(self, other):
        return find("int_div")(other, self)

    def __mod__(self, other):
        return find("mod")(self, other)

    def __rmod__(self, other):
        return find("mod")(other, self)

    def __divmod__(self, other):
        return find("int_div")(self, other), find("mod")(self, other)

    def __rdivmod__(self, other):
        return find("int_div")(other, self), find("mod")(other, self)

    def __pow__(self, other):
        return find("pow")(self, other)

    def __rpow__(self, other):
        return find("pow")(other, self)

    def __neg__(self):
        return find("neg")(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return find("abs")(self)

    # Comparisons build ops; == and != stay Python identity, as in PyTensor (use eq/neq).
    def __lt__(self, other):
        return find("lt")(self, other)

    def __le__(self, other):
        return find("le")(self, other)

    def __gt__(self, other):
        return find("gt")(self, other)

    def __ge__(self, other):
        return find("ge")(self, other)

    def __and__(self, other):
        return find("and_")(self, other)

    def __rand__(self, other):
        return find("and_")(other, self)

    def __or__(self, other):
        return find("or_")(self, other)

    def __ror__(self, other):
        return find("or_")(other, self)

    def __xor__(self, other):
        return find("xor")(self, other)

    def __rxor__(self, other):
        return find("xor")(other, self)

    def __invert__(self):
        return find("invert")(self)

    def reshape(self, *shape, ndim=None):
        """Return this tensor reshaped: x.reshape((2, -1)) or x.reshape(2, -1)."""
        return find("reshape")(self, shape[0] if len(shape) == 1 else shape, ndim=ndim)

    def dimshuffle(self, *pattern):
        """Return a view with axes reordered and 'x' length-1 axes added: x.dimshuffle(1, 'x', 0)."""
        if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
            pattern = pattern[0]
        return find("DimShuffle")(pattern)(self)

    def transpose(self, *axes):
        """Return a view with the axes permuted (reversed by default), as ndarray.transpose."""
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = axes[0]
        return find("transpose")(self, axes or None)

    @property
    def T(self):
        return self.transpose()

    def flatten(self, ndim=1):
        """Return this tensor with its trailing axes merged into `ndim` dimensions."""
        return find("flatten")(self, ndim)

    def astype(self, dtype):
        """Return this tensor converted to `dtype` (cast)."""
        return find("cast")(self, dtype)

    def zeros_like(self, dtype=None):
        """Return zeros shaped like this tensor (its dtype unless given)."""
        return find("zeros_like")(self, dtype)

    def ones_like(self, dtype=None):
        """Return ones shaped like this tensor (its dtype unless given)."""
        return find("ones_like")(self, dtype)

    @property
    def size(self):
        """The number of elements, an int64 scalar: x.shape[0] for a vector, else the product of x.shape."""
        shape = find("shape")(self)
        return shape[0] if self.type.ndim == 1 else find("prod")(shape)

    @property
    def mT(self):
        """This tensor with its last two axes swapped (numpy's ndarray.mT)."""
        return find("matrix_transpose")(self)

    def squeeze(self, axis=None):
        """Return this tensor without length-1 axes (those given, or those its type knows): squeeze."""
        return find("squeeze")(self, axis)

    def ravel(self):
        """Return this tensor flattened to a vector in C order."""
        return find("ravel")(self)

    def swapaxes(self, axis1, axis2):
        """Return a view with axes `axis1` and `axis2` swapped."""
        return find("swapaxes")(self, axis1, axis2)

    def repeat(self, repeats, axis=None):
        """Return numpy.repeat(self, repeats, axis)."""
        return find("repeat")(self, repeats, axis)

    def take(self, indices, axis=None, mode="raise"):
        """Return numpy.take(self, indices, axis, mode)."""
        return find("take")(self, indices, axis, mode)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """Return the `offset` diagonal of axes `axis1`, `axis2` as the last axis (a view)."""
        return find("diagonal")(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1):
        """Return the sum of the `offset` diagonal (numpy's ndarray.trace)."""
        return find("trace")(self, offset, axis1, axis2)

    def nonzero(self, return_matrix=False):
        """Return the coordinates of the nonzero elements, one int64 vector per axis (numpy's x.nonzero())."""
        return find("nonzero")(self, return_matrix)

    def choose(self, choices, mode="raise"):
        """Return numpy.choose(self, choices, mode): choices[self] at each position."""
        return find("choose")(self, choices, mode)

    def compress(self, condition, axis=None):
        """Return the slices along `axis` where `condition` is nonzero (numpy's x.compress)."""
        return find("compress")(condition, self, axis)

    def nonzero_values(self):
        """Return the nonzero elements, flattened in order."""
        return find("nonzero_values")(self)

    def fill(self, value):
        """Return `value` broadcast to this tensor's shape (PyTensor's x.fill(value))."""
        return find("fill")(self, value)

    def copy(self, name=None):
        """Return a symbolic copy of this tensor (a new array when run), named `name`."""
        copied = deep_copy_op(self)
        copied.name = name
        return copied

    @property
    def ndim(self):
        return self.type.ndim

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def broadcastable(self):
        return self.type.broadcastable

    @property
    def shape(self):
        return find("shape")(self)

    def sum(self, axis=None, keepdims=False):
        return find("sum")(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False):
        return find("prod")(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return find("max")(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return find("min")(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return find("mean")(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        """numpy's x.any(axis, keepdims): True where an element along `axis` is nonzero (NaN is); empty: False."""
        return find("gt")(find("neq")(self, 0).sum(axis=axis, keepdims=keepdims), 0)

    def all(self, axis=None, keepdims=False):
        """numpy's x.all(axis, keepdims): True where no element along `axis` is zero (NaN is not); empty: True."""
        return find("eq")(find("eq")(self, 0).sum(axis=axis, keepdims=keepdims), 0)

    def var(self, axis=None, ddof=0, keepdims=False, corrected=False):
        """Return the variance over `axis` (numpy.var; see opkit.tensor.var)."""
        return find("var")(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def std(self, axis=None, ddof=0, keepdims=False, corrected=False):
        """Return the standard deviation over `axis` (numpy.std; see opkit.tensor.std)."""
        return find("std")(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def ptp(self, axis=None, keepdims=False):
        """Return max - min over `axis` (numpy.ptp)."""
        return find("ptp")(self, axis=axis, keepdims=keepdims)

    def sort(self, axis=-1, kind="quicksort", order=None):
        """Return this tensor sorted along `axis`, NaN last (numpy.sort; `kind` is ignored)."""
        return find("sort")(self, axis, kind, order)

    def argsort(self, axis=-1, kind="quicksort", order=None):
        """Return the int64 indices that sort this tensor along `axis`, stably (numpy.argsort)."""
        return find("argsort")(self, axis, kind, order)

    def cumsum(self, axis=None):
        """Return the running sum along `axis` (None: flattened), numpy's dtype."""
        return find("cumsum")(self, axis)

    def cumprod(self, axis=None):
        """Return the running product along `axis` (None: flattened), numpy's dtype."""
        return find("cumprod")(self, axis)

    def clip(self, a_min, a_max):
        """Return this tensor limited to [a_min, a_max] elementwise (clip)."""
        return find("clip")(self, a_min, a_max)

    def conj(self):
        """Return the complex conjugate (real tensors unchanged)."""
        return find("conj")(self)

    conjugate = conj

    def round(self, mode=None):
        """Return this tensor rounded elementwise: halves to even (mode None or "half_to_even", numpy's) or away
        from zero ("half_away_from_zero"), as PyTensor's round."""
        if mode in (None, "half_to_even"):
            return find("round")(self)
        if mode == "half_away_from_zero":
            return find("round_half_away_from_zero")(self)
        raise ValueError(f"round: mode must be 'half_to_even' or 'half_away_from_zero', got {mode!r}")

    def norm(self, L, axis=None, keepdims=False):
        """Return the L-norm over `axis` (None: all): sum(abs(x) ** L) ** (1 / L), PyTensor's; L 0 and inf are
        not implemented (as PyTensor's)."""
        import numpy as np

        if isinstance(L, bool) or not isinstance(L, (int, float, np.integer, np.floating)):
            raise TypeError(f"norm: L must be a number, got {L!r}")
        if L == 0 or np.isinf(L):
            raise NotImplementedError(f"norm: L={L} is not implemented (PyTensor's neither); L must be finite, "
                                      "not 0")
        powered = find("pow")(find("abs")(self), L)
        return find("pow")(find("sum")(powered, axis=axis, keepdims=keepdims), 1.0 / L)

    def searchsorted(self, v, side="left", sorter=None):
        """Return where each value of `v` goes into this sorted vector (numpy.searchsorted; int64)."""
        return find("searchsorted")(self, v, side, sorter)

    def get_underlying_scalar_constant(self):
        """Return the 0-d numpy array this tensor always equals (PyTensor's), or raise NotScalarConstantError."""
        return find("get_scalar_constant_value")(self)

    def get_scalar_constant_value(self):
        """Return the 0-d numpy array this tensor always equals (Theano's), or raise NotScalarConstantError."""
        return find("get_scalar_constant_value")(self)

    def __matmul__(self, other):
        return find("matmul")(self, other)

    def __rmatmul__(self, other):
        return find("matmul")(other, self)

    def argmax(self, axis=None, keepdims=False):
        return find("argmax")(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return find("argmin")(self, axis=axis, keepdims=keepdims)

    def dot(self, other):
        return find("dot")(self, other)

    def __getitem__(self, index):
        return find("getitem")(self, index)

    def set(self, y, **kwargs):
        """Return what this x[index] was taken from, with x[index] set to y: set_subtensor(self, y, **kwargs)."""
        return find("set_subtensor")(self, y, **kwargs)

    def inc(self, y, **kwargs):
        """Return what this x[index] was taken from, with x[index] incremented by y: inc_subtensor(self, y)."""
        return find("inc_subtensor")(self, y, **kwargs)

    def __len__(self):
        raise TypeError("len() of a symbolic tensor is not known; use x.shape[0]")

    def __iter__(self):
        """Iterate a vector of statically known length (``c, d = neib_shape``, as Theano does); refuse otherwise."""
        length = self.type.shape[0] if self.type.ndim == 1 else None
        data = getattr(self, "data", None)  # a constant vector's length is its data's
        if length is None and self.type.ndim == 1 and data is not None:
            length = len(data)
        if length is None:
            raise TypeError("a symbolic tensor cannot be iterated (only a vector of known length can); "
                            "use x.shape and indexing")
        return (self[i] for i in range(length))

    def __bool__(self):
        raise TypeError("the truth value of a symbolic tensor is not known until it is computed")

    __hash__ = object.__hash__


# Elementwise functions as methods (PyTensor's and Theano's TensorVariable): x.exp() is exp(x).
UNARY_METHODS = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "ceil", "cos", "cosh", "deg2rad",
                 "exp", "exp2", "expm1", "floor", "log", "log10", "log1p", "log2", "rad2deg", "sin", "sinh", "sqrt", "tan",
                 "tanh", "trunc")


def _unary_method(name):
    def method(self):
        return find(name)(self)

    method.__name__, method.__qualname__ = name, f"_TensorOperators.{name}"
    method.__doc__ = f"Return {name}(self)."
    return method


for _name in UNARY_METHODS:
    setattr(_TensorOperators, _name, _unary_method(_name))
del _name


class TensorVariable(_TensorOperators, Variable):
    """A symbolic n-d array."""


class TensorConstant(_TensorOperators, Constant):
    """An n-d array known when the graph is built."""

"""TensorType: n-dimensional numpy arrays of one dtype, with optional static shape."""

from __future__ import annotations

import warnings

import numpy as np

from opkit.core.tensor.types.c_interface import TensorCInterface, register_tensor_c_code
from opkit.core.tensor.types.static_shape import shape_or_broadcastable, static_shape
from opkit.core.tensor.types.symbolic import TensorConstant, TensorVariable
from opkit.core.type import CType
from opkit.config import config
from opkit.core.tensor.types.operators import find
from opkit.core.scalar_type import ScalarType
from opkit.errors import ValueOverflowError

_SHORT = {"float64": "d", "float32": "f", "int32": "i", "int64": "l"}
_NAMES = {0: "scalar", 1: "vector", 2: "matrix", 3: "tensor3", 4: "tensor4"}


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"ndarray with ndim {value.ndim}, dtype {value.dtype}, shape {value.shape}"
    return f"{type(value).__name__} {value!r:.60}"


# Dropping a zero imaginary part loses nothing (only lossless complex casts are accepted).
_COMPLEX = getattr(getattr(np, "exceptions", np), "ComplexWarning")

# ndarray subclasses that add nothing the compiled code could drop: taken as plain ndarrays.
_PLAIN_SUBCLASSES = (np.memmap,)


def _plain_array(value, tensor_type):
    """Return the ndarray subclass `value` as a plain ndarray if nothing is lost, else raise TypeError."""
    if isinstance(value, _PLAIN_SUBCLASSES) and not isinstance(value, np.ma.MaskedArray):
        return np.asarray(value)
    cls = type(value)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(value, np.ma.MaskedArray):
        what = "its mask (opkit computes on every element, masked or not)"
        fix = "np.asarray(value) to compute on the data alone, or value.filled(fill) to choose masked values"
    elif isinstance(value, np.matrix):
        what = "its matrix semantics (* and ** as matrix products, always 2-d)"
        fix = "np.asarray(value)"
    else:
        what = f"whatever {cls.__qualname__} adds to the data"
        fix = "np.asarray(value) to compute on the data alone"
    raise TypeError(f"expected {tensor_type.describe()}, got a {name} (a subclass of numpy.ndarray): opkit "
                    f"computes on plain ndarrays and would drop {what}.\nHint: pass {fix}.")


def _stacklevel_outside_opkit():
    """Return the warnings stacklevel of the first caller outside opkit (the user's call)."""
    import sys

    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("opkit."):
        frame, level = frame.f_back, level + 1
    return level


class ArrayTypeNaming:
    """Equality, hash and printing of an array type by its dtype and static shape (TensorType, and
    opkit.gpu's GpuArrayType): equal only to the same class; printed as `<LABEL>(dtype, kind)` (a subclass
    keeps its base's label)."""

    LABEL = "ArrayType"

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype and other.shape == self.shape

    def __hash__(self):
        return hash((self.LABEL, self.dtype, self.shape))

    def __str__(self):
        if self.name:
            return self.name
        label = self.LABEL
        kind = _NAMES.get(self.ndim, f"tensor{self.ndim}")
        if all(s is None for s in self.shape):
            return f"{label}({self.dtype}, {kind})"
        return f"{label}({self.dtype}, shape={self.shape})"

    def __repr__(self):
        return str(self)


def dtype_name(dtype):
    """Return numpy's name of `dtype`; ``"floatX"`` (Theano's and PyTensor's name) is config.floatX."""
    if isinstance(dtype, str) and dtype == "floatX":
        dtype = config.floatX
    return str(np.dtype(dtype))


class TensorType(ArrayTypeNaming, TensorCInterface, CType):
    """Arrays of `dtype` with `len(shape)` dimensions; shape entries are None or ints."""

    LABEL = "TensorType"

    def __init__(self, dtype, shape=None, name=None, broadcastable=None):
        """`shape`: static lengths (ints, None where unknown), PyTensor's form; a sequence of bools only is
        Theano's positional `broadcastable` (True -> 1, False -> None), as is `broadcastable=`.
        Both may be given if they agree. The argument order is PyTensor's and Theano's (name third)."""
        self.shape = shape_or_broadcastable(shape, broadcastable, "TensorType")
        self.dtype = dtype_name(dtype)
        self.name = name
        self.numpy_dtype = np.dtype(self.dtype)

    def __call__(self, name=None, *, shape=None):
        """Return a new Variable of this type; `shape` (one entry per dimension, None: unknown) adds static lengths.

        ``ot.dvector("v", shape=(10,))`` is a float64 vector of static length 10. A length this
        type already fixes may be repeated or left None, never contradicted.
        """
        if shape is None:
            return self.make_variable(name)
        what = self.constructor_name()
        shape = static_shape(shape, self.ndim, what)
        for axis, (mine, given) in enumerate(zip(self.shape, shape)):
            if mine is not None and given is not None and mine != given:
                raise ValueError(f"{what}: shape entry {axis} is {given} but {self} has length {mine} on axis {axis}")
        merged = tuple(mine if given is None else given for mine, given in zip(self.shape, shape))
        return self.clone(shape=merged).make_variable(name)

    def constructor_name(self):
        """Return the name users call this type by: ``dvector`` for float64 1-d, else its str()."""
        if self.name is None and self.dtype in _SHORT and self.ndim in _NAMES and self.shape == (None,) * self.ndim:
            return _SHORT[self.dtype] + _NAMES[self.ndim]
        return str(self)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def broadcastable(self):
        return tuple(s == 1 for s in self.shape)

    def clone(self, dtype=None, shape=None, broadcastable=None):
        """Return this type with another dtype and/or static shape (`shape=` or Theano's `broadcastable=`)."""
        if shape is None and broadcastable is None:
            shape = self.shape
        return TensorType(self.dtype if dtype is None else dtype, shape, broadcastable=broadcastable)

    @property
    def variable_type(self):
        return TensorVariable

    @property
    def constant_type(self):
        return TensorConstant

    def filter(self, value, strict=False, allow_downcast=None):
        """Return `value` as a plain, aligned, native-order ndarray of this type, or raise TypeError saying why not.

        What numpy converts without loss is accepted: an equivalent dtype (np.longlong for
        int64), unaligned, byte-swapped and read-only arrays, numpy.memmap. An ndarray subclass
        that would lose its meaning here (np.ma's mask, np.matrix, any other subclass) is refused:
        pass np.asarray(value). Narrowing a float overflows to inf with numpy's RuntimeWarning.
        """
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
            value = _plain_array(value, self)
        if isinstance(value, np.ndarray) and value.dtype == self.numpy_dtype:
            data = value
        elif strict:
            raise TypeError(f"expected {self.describe()}, got {_describe(value)}")
        else:
            data = self._convert(value, allow_downcast)
        if data.ndim != self.ndim:
            raise TypeError(f"expected {self.describe()}, got {_describe(value)} (wrong number of dimensions)")
        for axis, (want, got) in enumerate(zip(self.shape, data.shape)):
            if want is not None and want != got:
                raise TypeError(f"expected {self.describe()}, got shape {data.shape} (axis {axis} must be {want})")
        return self._for_c(data)

    def _for_c(self, data):
        """Return `data` (of an equivalent dtype) as the compiled code reads it: aligned, native, this typenum."""
        if not data.dtype.isnative or not data.flags.aligned:
            data = np.array(data, dtype=self.numpy_dtype, order="K")  # a copy: raw bytes would be wrong numbers
        if data.dtype.num != self.numpy_dtype.num:
            data = data.view(self.numpy_dtype)  # np.longlong -> int64: same bytes, the declared type number
        return data

    def _convert(self, value, allow_downcast):
        if value is None:
            raise TypeError(f"expected {self.describe()}, got None")
        try:
            data = np.asarray(value)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"expected {self.describe()}, got {_describe(value)}: {exc}") from None
        if data.dtype.kind not in "biufc":
            raise TypeError(f"expected {self.describe()}, got {_describe(value)} (not numeric)")
        if data.dtype == self.numpy_dtype or np.can_cast(data.dtype, self.numpy_dtype, "safe"):
            return data.astype(self.numpy_dtype, copy=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            converted = data.astype(self.numpy_dtype)
        accepted = bool(allow_downcast)
        if not accepted and not isinstance(value, np.ndarray):
            _check_integers_fit(data, self)
        if not accepted and not isinstance(value, np.ndarray):
            # Python numbers and lists may be narrowed when nothing is lost; with allow_downcast=None
            # (the default) floats also when only precision is (opkit's version of Theano's floatX rule).
            accepted = np.array_equal(converted, data) or (
                allow_downcast is None and data.dtype.kind == "f" and self.numpy_dtype.kind == "f")
        if accepted:
            for warning in caught:  # numpy's own cast warnings (overflow to inf) reach the caller
                if issubclass(warning.category, RuntimeWarning) and not issubclass(warning.category, _COMPLEX):
                    warnings.warn(f"{warning.message} to {self.dtype}: {_describe(value)}", warning.category,
                                  stacklevel=_stacklevel_outside_opkit())
            return converted
        raise TypeError(
            f"expected {self.describe()}, got {_describe(value)}: casting {data.dtype} to {self.dtype} "
            f"would lose information.\nHint: convert it yourself (numpy.asarray(value, dtype='{self.dtype}')), "
            f"or declare the input with dtype {data.dtype}.")

    def in_same_class(self, other):
        """Return True for a TensorType of the same dtype with its static 1s on the same axes (as PyTensor)."""
        return (isinstance(other, TensorType) and other.dtype == self.dtype
                and other.broadcastable == self.broadcastable)

    def is_super(self, other):
        """Return True if every value of `other` is a value of this type: same dtype and ndim, and each
        static length of this type is also `other`'s (`other` may know more lengths, never fewer)."""
        return (isinstance(other, type(self)) and other.dtype == self.dtype and other.ndim == self.ndim
                and all(mine is None or mine == theirs for mine, theirs in zip(self.shape, other.shape)))

    def convert_variable(self, var):
        """Return `var` as a variable usable where this type is expected, or None if it cannot be.

        `var` itself when its type is as specific; a SpecifyShape of it (checked at run
        time) when only its static shape is less specific; None otherwise.
        """
        if self.is_super(var.type):
            return var
        other = var.type
        if not (isinstance(other, TensorType) and other.dtype == self.dtype and other.ndim == self.ndim):
            return None
        if any(mine is not None and theirs is not None and mine != theirs
               for mine, theirs in zip(self.shape, other.shape)):
            return None

        return find("specify_shape")(var, self.shape)

    def describe(self):
        return f"{self} (ndim {self.ndim}, dtype {self.dtype})"

    def dtype_specs(self):
        """Theano's (numpy scalar type, C type name, C API class name) of the element type: C ops read [1]."""
        return ScalarType(self.dtype).dtype_specs()

    def values_eq(self, a, b):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.all(a == b))

    def values_eq_approx(self, a, b, rtol=None, atol=None):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "iub" and b.dtype.kind in "iub":
            return bool(np.array_equal(a, b))
        loose = "float32" in (str(a.dtype), str(b.dtype)) or "float16" in (str(a.dtype), str(b.dtype))
        rtol = rtol if rtol is not None else (1e-4 if loose else 1e-8)
        atol = atol if atol is not None else (1e-5 if loose else 1e-10)
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


    def __getstate__(self):
        return {"dtype": self.dtype, "shape": self.shape, "name": self.name}

    def __setstate__(self, state):
        self.__init__(state["dtype"], state["shape"], name=state["name"])


def _check_integers_fit(data, tensor_type):
    """Raise ValueOverflowError if Python integers (or numbers) do not fit an integer dtype, as numpy 2 raises
    OverflowError for np.asarray([312], dtype="int8"); allow_downcast=True wraps them instead."""
    target = tensor_type.numpy_dtype
    if target.kind not in "iu" or data.dtype.kind not in "iub" or data.size == 0:
        return
    info = np.iinfo(target)
    low, high = data.min(), data.max()
    if low < info.min or high > info.max:
        bad = low if low < info.min else high
        raise ValueOverflowError(f"expected {tensor_type.describe()}, got the integer {bad}, out of bounds for "
                                 f"{target} ({info.min} to {info.max}).\nHint: pass allow_downcast=True (or "
                                 "function(..., allow_input_downcast=True)) to wrap it around as numpy's astype does.")


def named_types():
    """Return the module-level types: dscalar, fvector, imatrix, ltensor4, ..."""
    types = {}
    for dtype, prefix in _SHORT.items():
        for ndim, kind in _NAMES.items():
            types[prefix + kind] = TensorType(dtype, (None,) * ndim)
    return types


register_tensor_c_code(TensorType)

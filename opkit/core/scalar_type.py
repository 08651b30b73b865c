"""ScalarType: one number of a numpy dtype, held in C as a variable of that numpy C type."""

from __future__ import annotations

import numbers

import numpy as np

from opkit.core.c_source import render
from opkit.core.graph import Constant, Variable
from opkit.core.tensor.types.operators import find  # the 0-d tensor ops and TensorType: later layers
from opkit.core.type import CType

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")

def _c(macro, **values):
    """Return the C text of `macro` in opkit/templates/scalar_type.c.j2."""
    return render("scalar_type.c.j2", macro, **values)


def _c_type(dtype):
    return f"npy_{dtype}"


def _typenum(dtype):
    return f"NPY_{dtype.upper()}"


def _operator(name):
    def method(self, *other):
        return find("apply_operator")(name, self, *other)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"The 0-d tensor's {name} (opkit.core.tensor.shapes.scalar_tensor): a scalar variable when the result is 0-d."
    return method


class _ScalarOperators:
    """PyTensor's ScalarVariable operators (+, -, *, /, //, %, **, comparisons, ~, &, |, ^), on 0-d tensors."""


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__",
              "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__",
              "__xor__", "__rxor__", "__invert__"):  # PyTensor's ScalarVariable's (scalar_tensor.apply_operator)
    setattr(_ScalarOperators, _name, _operator(_name))


class ScalarVariable(_ScalarOperators, Variable):
    """A symbolic number of a ScalarType; `dtype` is its type's (PyTensor's ScalarVariable has it)."""

    @property
    def dtype(self):
        return self.type.dtype


class ScalarConstant(_ScalarOperators, Constant):
    """A number known when the graph is built, of a ScalarType."""

    @property
    def dtype(self):
        return self.type.dtype


class ScalarType(CType):
    """A scalar of numpy dtype `dtype`; in C a variable of the numpy type (``npy_float64``).

    Values are numpy scalars of exactly that dtype: Python numbers and other
    numpy scalars are converted, an integer type refusing what it cannot hold
    exactly (unless ``allow_downcast``).
    """

    def __init__(self, dtype):
        dtype = np.dtype(dtype).name
        if dtype not in DTYPES:
            raise TypeError(f"ScalarType: unsupported dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
        self.dtype = dtype

    @property
    def numpy_type(self):
        return np.dtype(self.dtype).type

    def filter(self, value, strict=False, allow_downcast=None):
        """Return `value` as a numpy scalar of this dtype, or raise TypeError saying why not."""
        kind = self.numpy_type
        if type(value) is kind:
            return value
        if strict:
            raise TypeError(f"expected a numpy.{self.dtype} scalar, got {type(value).__name__} {value!r}")
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        if not isinstance(value, (numbers.Number, np.generic)) or isinstance(value, (np.datetime64, np.timedelta64)):
            raise TypeError(f"expected a number for a {self.dtype} scalar, got {type(value).__name__} {value!r}")
        if np.dtype(self.dtype).kind != "c" and np.iscomplexobj(value):
            if value.imag and not allow_downcast:
                raise TypeError(f"{value!r} has an imaginary part a {self.dtype} scalar cannot hold")
            value = value.real
        try:
            with np.errstate(all="ignore"):
                converted = kind(value)
        except (OverflowError, ValueError, TypeError) as exc:
            raise TypeError(f"{value!r} does not fit a {self.dtype} scalar: {exc}") from None
        if not allow_downcast and np.dtype(self.dtype).kind in "biu" and converted != value:
            raise TypeError(f"{value!r} does not fit a {self.dtype} scalar exactly "
                            "(pass allow_downcast=True to convert it anyway)")
        return converted

    def dtype_specs(self):
        """Return (numpy scalar type, C type name, C API class name): Theano's triple, e.g. (np.float64,
        "npy_float64", "Float64")."""
        return self.numpy_type, _c_type(self.dtype), self.dtype.capitalize()

    @staticmethod
    def upcast(*types):
        """Return numpy's promoted dtype name of ScalarTypes `types` (PyTensor's ScalarType.upcast)."""
        return np.result_type(*[np.dtype(t.dtype) for t in types]).name

    def values_eq(self, a, b):
        return bool(a == b) or bool(np.isnan(a) and np.isnan(b)) if self.dtype[0] in "fc" else bool(a == b)

    def values_eq_approx(self, a, b):
        return bool(np.allclose(a, b, equal_nan=True))

    variable_type = ScalarVariable

    def make_constant(self, value, name=None):
        return ScalarConstant(self, value, name=name)

    def __eq__(self, other):
        return type(self) is type(other) and self.dtype == other.dtype

    def __hash__(self):
        return hash((type(self), self.dtype))

    def __str__(self):
        return f"Scalar({self.dtype})"

    __repr__ = __str__

    # ---- the C interface: a variable of the numpy C type ----

    def c_element_type(self):
        return _c_type(self.dtype)

    def c_declare(self, name, sub, check_input=True):
        return _c("declare", ctype=_c_type(self.dtype), name=name)

    def c_init(self, name, sub):
        return _c("init", ctype=_c_type(self.dtype), name=name)

    def c_extract(self, name, sub, check_input=True):
        return _c("extract", name=name, typenum=_typenum(self.dtype), check_input=int(bool(check_input)),
                  dtype=self.dtype, fail=sub["fail"])

    def c_sync(self, name, sub):
        return _c("sync", name=name, typenum=_typenum(self.dtype), fail=sub["fail"])

    def c_cleanup(self, name, sub):
        return ""

    def c_headers(self, c_compiler=None):
        return ["<cstring>"]

    def c_support_code(self):
        return _c("extract_support")

    def c_code_cache_version(self):
        return (1,)


def as_scalar(value, name=None):
    """Return `value` as a scalar-typed Variable: a scalar variable as is, a number as a constant, a 0-d
    tensor through scalar_from_tensor (PyTensor's ScalarFromTensor)."""
    if isinstance(value, Variable):
        if isinstance(value.type, ScalarType):
            return value
        if isinstance(value.type, find("TensorType")) and value.type.ndim == 0:
            return find("scalar_from_tensor")(value)
        raise TypeError(f"as_scalar: {value} has type {value.type}, not a ScalarType or a 0-d tensor")
    if isinstance(value, np.ndarray) and value.ndim != 0:
        raise TypeError(f"as_scalar: expected a number, got an array of shape {value.shape}")
    if isinstance(value, bool):
        dtype = "bool"
    elif isinstance(value, (numbers.Number, np.generic, np.ndarray)):
        dtype = np.asarray(value).dtype.name
    else:
        raise TypeError(f"as_scalar: expected a number or a scalar variable, got {type(value).__name__}")
    return ScalarType(dtype).make_constant(value, name=name)


SCALAR_TYPES = {dtype: ScalarType(dtype) for dtype in DTYPES}

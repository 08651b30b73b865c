"""theano.tensor.basic: opkit.tensor's names, plus Theano's helpers and spellings.

Theano's dtype-name lists, ``extract_constant``, ``get_scalar_constant_value`` and its
``NotScalarConstantError`` (constants.py), ``patternbroadcast``/``addbroadcast``/``unbroadcast``
(broadcasting.py), ``as_tensor`` (``AsTensorError`` is TypeError, what opkit's as_tensor_variable
raises), ``join``, ``sgn``, ``abs_``, ``inv``, ``fill``/``second``, ``tensor_copy``,
``ceil_intdiv``, ``get_vector_length``, and the int8/int16/complex variable constructors; Theano's lists of
TensorType instances by kind (``int_types``... ``complex_matrix_types``), its default comparison tolerances
(``float32_atol``...) and ``check_equal_numpy``, ``isnan_``/``isinf_``, and its op classes (op_classes.py:
``Join``, ``Split``, ``Nonzero``..., factories of opkit's nodes).
"""

import builtins

import numpy as np

import opkit.tensor as _ot
from opkit.compat.theano import scalar as scal
from opkit.compat.theano.printing import pprint
from opkit.compat.theano.tensor import elemwise
from opkit.compat.theano.tensor.broadcasting import addbroadcast, patternbroadcast, unbroadcast
from opkit.compat.theano.tensor.op_classes import *  # noqa: F403  (Theano's op classes: Join, Split...)
from opkit.compat.theano.tensor.op_classes import __all__ as _op_classes
from opkit.core.tensor.types.constant_value import EmptyConstantError, NotScalarConstantError, get_scalar_constant_value
from opkit.core.builtin_ops import Shape, deep_copy_op
from opkit.core.tensor.shapes.scalar_tensor import scalar_from_tensor, tensor_from_scalar
from opkit.core.shared import shared as _shared
from opkit.core.graph import Apply, Constant, Variable
from opkit.core.op import Op
from opkit.core.tensor.shapes.alloc import Alloc
from opkit.core.tensor.shapes.creation import ARange
from opkit.core.tensor.shapes.fill import _fill as fill
from opkit.core.tensor.types.constructors import small_int_and_complex_types
from opkit.tensor import *  # noqa: F403
from opkit.tensor import __all__ as _names
from opkit.compat.theano.tensor.constant_cache import constant, constant_cache  # noqa: F811  (Theano's cache)

AsTensorError = TypeError  # opkit's as_tensor_variable raises TypeError for what it cannot convert
as_tensor = _ot.as_tensor_variable
second = fill  # Theano's name of fill's elementwise form: second(a, b) has b's values in a's shape
sgn = _ot.sign
abs_ = _ot.abs
Tensor = _ot.TensorType  # Theano's other name of TensorType

int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
float_dtypes = ["float16", "float32", "float64"]
complex_dtypes = ["complex64", "complex128"]
discrete_dtypes = ["bool", *int_dtypes, *uint_dtypes]
continuous_dtypes = [*float_dtypes, *complex_dtypes]
all_dtypes = [*discrete_dtypes, *continuous_dtypes]
integer_dtypes = [*int_dtypes, *uint_dtypes]


def tensor_copy(x):
    """Return a copy of `x` (Theano's elementwise identity that never aliases its input)."""
    return deep_copy_op(_ot.as_tensor_variable(x))


def max_and_argmax(a, axis=None, keepdims=False):
    """Return [max(a, axis), argmax(a, axis)] (two nodes: opkit has no fused MaxAndArgmax op)."""
    return [_ot.max(a, axis=axis, keepdims=keepdims), _ot.argmax(a, axis=axis, keepdims=keepdims)]


def inv(x):
    """Return 1 / x (Theano's inv; integers give floats, as true division does)."""
    return _ot.true_div(1.0, x)


def join(axis, *tensors):
    """Theano's join: concatenate `tensors` along `axis`."""
    return _ot.concatenate(list(tensors), axis=axis)


def ceil_intdiv(a, b):
    """Return ceil(a / b) for integers: a // b, plus 1 where the division has a remainder."""
    div = _ot.int_div(a, b)
    return div + _ot.cast(_ot.neq(_ot.mod(a, b), 0), div.dtype)


def get_vector_length(v):
    """Return the length of the vector `v` when the graph fixes it (static shape, shape(x), MakeVector)."""
    v = _ot.as_tensor_variable(v)
    if v.ndim != 1:
        raise TypeError(f"argument must be a symbolic vector, got {v} with {v.ndim} dimensions")
    if v.type.shape[0] is not None:
        return v.type.shape[0]
    if v.owner is not None and type(v.owner.op).__name__ in ("Shape", "MakeVector"):
        return v.owner.inputs[0].ndim if type(v.owner.op).__name__ == "Shape" else len(v.owner.inputs)
    raise ValueError(f"length not known: {v} has no static length")


# int8 (b), int16 (w), complex64 (c), complex128 (z) of every kind: bscalar, wrow, ccol, ztensor7
_MORE_TYPES = small_int_and_complex_types()
globals().update(_MORE_TYPES)

# Theano's lists of TensorType instances by kind (its ops' type checks: ``splits.type not in int_vector_types``).
int_types = (bscalar, wscalar, iscalar, lscalar)  # noqa: F405
float_types = (fscalar, dscalar)  # noqa: F405
complex_types = (cscalar, zscalar)  # noqa: F405
int_scalar_types, float_scalar_types, complex_scalar_types = int_types, float_types, complex_types
int_vector_types = (bvector, wvector, ivector, lvector)  # noqa: F405
float_vector_types = (fvector, dvector)  # noqa: F405
complex_vector_types = (cvector, zvector)  # noqa: F405
int_matrix_types = (bmatrix, wmatrix, imatrix, lmatrix)  # noqa: F405
float_matrix_types = (fmatrix, dmatrix)  # noqa: F405
complex_matrix_types = (cmatrix, zmatrix)  # noqa: F405
_TYPE_LISTS = ["int_types", "float_types", "complex_types", "int_scalar_types", "float_scalar_types",
              "complex_scalar_types", "int_vector_types", "float_vector_types", "complex_vector_types",
              "int_matrix_types", "float_matrix_types", "complex_matrix_types"]

# Theano's default comparison tolerances (tensor/basic.py, neither config.tensor.cmp_sloppy set): float64's are
# numpy.allclose's defaults.
float16_atol, float16_rtol = 1e-3, 1e-3
float32_atol, float32_rtol = 1e-5, 1e-5
float64_rtol, float64_atol = 1.0000000000000001e-05, 1e-8


def check_equal_numpy(x, y):
    """Theano's checker: True iff `x` and `y` are equal. Two arrays: the same dtype and shape and every value
    within 1e-10 (NaN is unequal; booleans compare as they are); two RandomStates: the same state; else x == y."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype == bool:
            return bool(np.all(x == y))
        return bool(np.all(np.abs(x - y) < 1e-10))  # numpy's abs: opkit.tensor's abs is imported here
    if isinstance(x, np.random.RandomState) and isinstance(y, np.random.RandomState):
        return builtins.all(np.all(a == b) for a, b in zip(x.get_state(), y.get_state()))  # not opkit's all
    return x == y


isnan_ = _ot.isnan  # Theano's names of its elementwise isnan/isinf (isnan/isinf skip them for integers)
isinf_ = _ot.isinf


def extract_constant(x, elemwise=True, only_process_constants=False):
    """Theano's helper: the data of a constant (a 0-d one as a numpy scalar); any other variable as it is."""
    if isinstance(x, Constant):
        data = x.data
        return data[()] if getattr(data, "ndim", None) == 0 else data
    return x


def shape_padleft(t, n_ones=1):
    """Theano's helper: `t` with `n_ones` broadcastable axes in front (a dimshuffle)."""
    return t.dimshuffle(["x"] * n_ones + list(range(t.ndim)))


def shape_padright(t, n_ones=1):
    """Theano's helper: `t` with `n_ones` broadcastable axes at the end (a dimshuffle)."""
    return t.dimshuffle(list(range(t.ndim)) + ["x"] * n_ones)


__all__ = [*_names, *_MORE_TYPES, "ARange", "Alloc", "Apply", "AsTensorError", "Constant", "EmptyConstantError",
           "NotScalarConstantError", "Op", "Shape", "Tensor", "_shared", "outer", "scalar_from_tensor",
           "tensor_from_scalar", "Variable", "abs_", "addbroadcast", "as_tensor", "ceil_intdiv",
           "elemwise", "fill", "get_scalar_constant_value", "get_vector_length", "integer_dtypes",
           "inv", "join", "max_and_argmax", "patternbroadcast", "pprint", "scal", "second", "sgn", "tensor_copy", "unbroadcast",
           "shape_padleft", "shape_padright", "int_dtypes", "uint_dtypes", "float_dtypes", "complex_dtypes", "discrete_dtypes",
           "continuous_dtypes", "all_dtypes", "extract_constant", "constant_cache", *_TYPE_LISTS, *_op_classes,
           "float16_atol", "float16_rtol", "float32_atol", "float32_rtol", "float64_atol", "float64_rtol",
           "check_equal_numpy", "isinf_", "isnan_"]


# Each name opkit.tensor gains (issue 48's functions) is here too, looked up on first use.
from opkit.lazy import lazy_names as _lazy_names  # noqa: E402

__getattr__, __dir__ = _lazy_names(globals(), search=("opkit.tensor",))

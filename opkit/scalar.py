"""opkit.scalar: scalar types, and Theano's and PyTensor's API for writing scalar ops.

``theano.scalar`` / ``pytensor.scalar`` port to ``opkit.scalar``: ``ScalarType(dtype)`` is one number
held in C as a variable of the numpy C type (``npy_float64``; ``dtype_specs()`` names it).

A scalar op is written as in PyTensor's ``scalar/math.py``: subclass ``UnaryScalarOp`` (or
``BinaryScalarOp``, ``ScalarOp`` with ``nin``), give it ``impl``, statement-style ``c_code(node, name,
inp, out, sub)`` and ``grad`` (or ``L_op``, ``pullback``), make it with an
``output_types_preference`` (``upgrade_to_float``, ``same_out``, ``transfer_type(0)``...), and wrap
it: ``opkit.tensor.Elemwise(op, name=...)``. Its gradient is built on tensor variables: the
functions below (``exp``, ``switch``, ``true_div``, ...) and the op itself, called on tensors, build
Elemwise nodes.
"""

import numpy as _np

from opkit.core.scalar_type import DTYPES, SCALAR_TYPES, ScalarType, as_scalar
from opkit.core.tensor.elementwise.basic import (add, exp, log, maximum, mul, neg, pow, sqr, sqrt, sub, true_div,
                                                 upcast)
from opkit.core.tensor.elementwise.elemwise_math import (abs, ceil, clip, cos, expm1, floor, floor_div, int_div,
                                                         log1p, minimum, mod, sigmoid, sign, sin, softplus, tanh)
from opkit.core.tensor.elementwise.logic import and_, eq, ge, gt, invert, le, lt, neq, or_, switch, xor
from opkit.core.tensor.scalars.user_scalar import (BinaryScalarOp, ScalarOp, UnaryScalarOp, all_types, bool_types,
                                                   complex_types, continuous_types, discrete_dtypes, discrete_types,
                                                   float_dtypes, float_out, float_types, get_scalar_type, int_out,
                                                   int_types, integer_types, real_out, same_out, same_out_float_only,
                                                   same_out_min8, same_out_nobool, same_out_nocomplex, specific_out,
                                                   transfer_type, uint_types, upcast_out, upcast_out_min8,
                                                   upcast_out_no_complex, upcast_out_nobool, upgrade_to_float,
                                                   upgrade_to_float64, upgrade_to_float_no_complex)
from opkit.core.tensor.shapes.alloc import cast

bool = SCALAR_TYPES["bool"]  # noqa: A001 - the dtype's name, as numpy and PyTensor spell it
int8, int16, int32, int64 = (SCALAR_TYPES[d] for d in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (SCALAR_TYPES[d] for d in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (SCALAR_TYPES[d] for d in ("float16", "float32", "float64"))
complex64, complex128 = SCALAR_TYPES["complex64"], SCALAR_TYPES["complex128"]
abs_ = abs


def isnan(x):
    """True where `x` is NaN (np.isnan; integers never are)."""
    return neq(x, x)


def isinf(x):
    """True where `x` is +-inf (np.isinf; integers never are)."""
    return eq(abs(x), _np.inf)


def reciprocal(x):
    """1 / x."""
    return true_div(1, x)


__all__ = [
    "ScalarType", "as_scalar", "upcast", "get_scalar_type", *DTYPES,
    "ScalarOp", "UnaryScalarOp", "BinaryScalarOp",
    "upcast_out", "upcast_out_nobool", "upcast_out_min8", "upcast_out_no_complex", "upgrade_to_float",
    "upgrade_to_float64", "upgrade_to_float_no_complex", "same_out", "same_out_nobool", "same_out_min8",
    "same_out_nocomplex", "same_out_float_only", "real_out", "int_out", "float_out", "transfer_type", "specific_out",
    "bool_types", "int_types", "uint_types", "integer_types", "float_types", "complex_types", "discrete_types",
    "continuous_types", "all_types", "discrete_dtypes", "float_dtypes",
    "add", "sub", "mul", "true_div", "int_div", "floor_div", "mod", "neg", "exp", "log", "log1p", "expm1", "sqr",
    "sqrt", "pow", "maximum", "minimum", "clip", "abs", "abs_", "sign", "floor", "ceil", "tanh", "sin", "cos",
    "sigmoid", "softplus", "switch", "lt", "gt", "le", "ge", "eq", "neq", "and_", "or_", "xor", "invert", "cast",
    "isnan", "isinf", "reciprocal",
]

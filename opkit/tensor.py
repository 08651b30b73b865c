"""opkit.tensor: n-d array types, variables and the built-in tensor operations."""

import sys as _sys

import opkit.link  # noqa: F401  (lets Variable.eval run graphs)

# Eager: what building and compiling `x * y` imports anyway, and the types the constructors below need.
from opkit.core.tensor.elementwise.basic import (Dot, add, dot, exp, log, maximum, mul, neg, pow, sqr, sqrt, sub,
                                                 true_div, upcast)
from opkit.core.tensor.elementwise import elemwise as _elemwise_module
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.reductions.reduction import (Argmax, Argmin, Max, Mean, Min, Prod, Sum, argmax, argmin, max,
                                                    mean, min, prod, sum)
from opkit.core.tensor.shapes.alloc import Cast, DimShuffle, alloc, cast, ones_like, transpose, zeros_like
from opkit.core.tensor.shapes.reshape import Reshape, flatten, reshape
from opkit.core.tensor.shapes.shape_ops import shape
from opkit.core.tensor.types.constructors import (MORE_KINDS, col, matrix, more_named_types, plural_constructors, row,
                                                  scalar, tensor, tensor3, tensor4, tensor5, tensor6, tensor7, vector)
from opkit.core.tensor.types.type import TensorType, named_types
from opkit.core.tensor.types.variable import TensorConstant, TensorVariable, as_tensor_variable, constant
from opkit.lazy import lazy_names as _lazy_names

# Lazy (PEP 562): imported on first use, so a fresh process that only builds `x * y` does not pay for them.
_LAZY = {
    "opkit.core.gradient": ("Lop", "Rop", "grad"),
    "opkit.core.tensor.elementwise.elemwise_math": (
        "abs", "ceil", "clip", "cos", "expm1", "floor", "floor_div", "int_div", "log1p", "minimum", "mod", "round",
        "sigmoid", "sign", "sin", "softplus", "tanh"),
    "opkit.core.tensor.elementwise.elemwise_elementary": (
        "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "bitwise_and",
        "bitwise_not", "bitwise_or", "bitwise_xor", "complex", "complex_from_polar", "conj", "conjugate", "cosh",
        "deg2rad", "divide", "divmod", "equal", "exp2", "greater", "greater_equal", "hypot", "imag", "iround",
        "isfinite", "isinf", "isnan", "isneginf", "isposinf", "largest", "less", "less_equal", "log10", "log2",
        "logaddexp", "nan_to_num", "negative", "not_equal", "power", "rad2deg", "real", "reciprocal",
        "round_half_away_from_zero", "round_half_to_even", "sinh", "smallest", "square", "tan", "true_divide", "trunc"),
    "opkit.core.tensor.elementwise.elemwise_special": (
        "beta", "betainc", "betaincinv", "betaln", "chi2sf", "digamma", "erf", "erfc", "erfcinv", "erfcx", "erfinv",
        "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammainccinv", "gammaincinv", "gammal", "gammaln",
        "gammau", "hyp2f1", "i0", "i1", "iv", "ive", "j0", "j1", "jv", "kn", "kv", "kve", "log1mexp", "log1pexp",
        "logit", "ndtri_exp", "owens_t", "poch", "polygamma", "psi", "tri_gamma", "xlog1py", "xlogx", "xlogy",
        "xlogy0"),
    "opkit.core.tensor.elementwise.logic": (
        "and_", "eq", "ge", "gt", "invert", "le", "lt", "neq", "or_", "switch", "where", "xor"),
    "opkit.core.tensor.shapes.creation": ("arange", "ones", "zeros"),
    "opkit.core.tensor.shapes.axes": (
        "atleast_1d", "atleast_2d", "atleast_3d", "atleast_Nd", "broadcast_arrays", "broadcast_shape", "broadcast_to",
        "expand_dims", "matrix_transpose", "moveaxis", "ravel", "roll", "squeeze", "swapaxes", "tile"),
    "opkit.core.tensor.shapes.diagonal": (
        "AllocDiag", "Eye", "ExtractDiag", "FillDiagonal", "FillDiagonalOffset", "diag", "diagonal", "eye",
        "fill_diagonal", "fill_diagonal_offset", "identity_like", "trace"),
    "opkit.core.tensor.shapes.repeat_take": ("Choose", "Repeat", "Take", "choose", "repeat", "take"),
    "opkit.core.tensor.shapes.filled": (
        "Bartlett", "bartlett", "empty", "empty_like", "full", "full_like", "linspace", "logspace", "mgrid", "ogrid",
        "tri", "tril", "triu"),
    "opkit.core.tensor.shapes.closeness": ("allclose", "isclose"),
    "opkit.core.tensor.shapes.split": ("horizontal_stack", "split", "stacklists", "vertical_stack"),
    "opkit.core.tensor.shapes.unravel": ("RavelMultiIndex", "UnravelIndex", "ravel_multi_index", "unravel_index"),
    "opkit.core.tensor.shapes.nonzero": (
        "compress", "flatnonzero", "nonzero", "nonzero_values", "tril_indices", "tril_indices_from", "triu_indices",
        "triu_indices_from"),
    "opkit.core.tensor.shapes.join": ("concatenate", "stack"),
    "opkit.core.tensor.shapes.specify_shape": ("SpecifyShape", "specify_shape"),
    "opkit.core.tensor.shapes.subtensor": ("Subtensor",),
    "opkit.core.tensor.shapes.inc_subtensor": ("IncSubtensor", "inc_subtensor", "set_subtensor"),
    "opkit.core.tensor.shapes.advanced_subtensor": ("AdvancedSubtensor", "AdvancedSubtensor1"),
    "opkit.core.tensor.shapes.advanced_inc_subtensor": ("AdvancedIncSubtensor", "AdvancedIncSubtensor1"),
    "opkit.core.tensor.shapes.take_along_axis": ("take_along_axis",),
    "opkit.core.tensor.shapes.advanced_index": (
        "advanced_inc_subtensor", "advanced_inc_subtensor1", "advanced_set_subtensor", "advanced_set_subtensor1",
        "advanced_subtensor", "advanced_subtensor1"),
    "opkit.link.jacobian": ("hessian", "jacobian"),
    "opkit.core.tensor.reductions.statistics": ("all", "any", "logsumexp", "ptp", "std", "var"),
    "opkit.core.tensor.sorting.sort": ("argsort", "sort"),
    "opkit.core.tensor.sorting.cumulative": ("cumprod", "cumsum"),
    "opkit.core.tensor.products.matmul": ("batched_dot", "matmul", "outer", "tensordot"),
    "opkit.core.tensor.products.vector_products": ("batched_tensordot", "cov", "matvec", "vecdot", "vecmat"),
    "opkit.core.tensor.sorting.searching": (
        "ArgSortOp", "SearchsortedOp", "SortOp", "Unique", "bincount", "inverse_permutation", "median",
        "permute_row_elements", "searchsorted", "unique"),
    "opkit.core.tensor.shapes.extra_shapes": (
        "ShapeError", "concat_with_broadcast", "consider_constant", "diff", "extract_diag", "geomspace", "identity",
        "is_flat", "slice_at_axis"),
    "opkit.core.tensor.shapes.scalar_tensor": ("ScalarFromTensor", "TensorFromScalar", "scalar_from_tensor", "tensor_from_scalar"),
    "opkit.core.tensor.shapes.reshape_dims": ("join_dims", "pack", "split_dims", "unpack"),
    "opkit.core.tensor.shapes.vectorize": ("vectorize",),
    "opkit.core.tensor.sorting.topk": ("argtopk", "topk", "topk_and_argtopk"),
    "opkit.core.tensor.sorting.interpolate": ("interp", "interpolate1d"),
    "opkit.core.tensor.products.einsum": ("einsum",),
    "opkit.core.tensor.products.linalg": (
        "Cholesky", "Det", "Eigh", "MatrixInverse", "SVD", "Solve", "cholesky", "det", "eigh", "matrix_inverse", "norm",
        "solve", "svd"),
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}


__getattr__, __dir__ = _lazy_names(globals(), _HOME)


# PyTensor's home of Elemwise, pytensor.tensor.elemwise: `from opkit.tensor.elemwise import Elemwise` works too.
elemwise = _sys.modules.setdefault(__name__ + ".elemwise", _elemwise_module)

_named_types = named_types()  # made once: each call builds twenty TensorTypes
_plural_constructors = plural_constructors(_named_types)  # scalars, dvectors, fmatrices, ...
_more_named_types = more_named_types()  # drow, fcol, itensor5, ltensor7, ... (PyTensor's)
_more_plural_constructors = plural_constructors(_more_named_types, MORE_KINDS)  # rows, dcols, ftensor5s, ...
globals().update(_named_types)
globals().update(_plural_constructors)
globals().update(_more_named_types)
globals().update(_more_plural_constructors)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the lazy names and what globals().update() above defines, for type checkers and editors
    from opkit.core.gradient import Lop, Rop, grad
    from opkit.core.tensor.shapes.scalar_tensor import ScalarFromTensor, TensorFromScalar, scalar_from_tensor, tensor_from_scalar
    from opkit.core.tensor.elementwise.elemwise_math import (abs, ceil, clip, cos, expm1, floor, floor_div, int_div,
                                                             log1p, minimum, mod, round, sigmoid, sign, sin,
                                                             softplus, tanh)
    from opkit.core.tensor.elementwise.elemwise_elementary import (angle, arccos, arccosh, arcsin, arcsinh, arctan,
                                                                   arctan2, arctanh, bitwise_and, bitwise_not,
                                                                   bitwise_or, bitwise_xor, complex,
                                                                   complex_from_polar, conj, conjugate, cosh, deg2rad,
                                                                   divide, divmod, equal, exp2, greater,
                                                                   greater_equal, hypot, imag, iround, isfinite,
                                                                   isinf, isnan, isneginf, isposinf, largest, less,
                                                                   less_equal, log10, log2, logaddexp, nan_to_num,
                                                                   negative, not_equal, power, rad2deg, real,
                                                                   reciprocal, round_half_away_from_zero,
                                                                   round_half_to_even, sinh, smallest, square, tan,
                                                                   true_divide, trunc)
    from opkit.core.tensor.elementwise.elemwise_special import (beta, betainc, betaincinv, betaln, chi2sf, digamma,
                                                                erf, erfc, erfcinv, erfcx, erfinv, expit, factorial,
                                                                gamma, gammainc, gammaincc, gammainccinv, gammaincinv,
                                                                gammal, gammaln, gammau, hyp2f1, i0, i1, iv, ive, j0,
                                                                j1, jv, kn, kv, kve, log1mexp, log1pexp, logit,
                                                                ndtri_exp, owens_t, poch, polygamma, psi, tri_gamma,
                                                                xlog1py, xlogx, xlogy, xlogy0)
    from opkit.core.tensor.elementwise.logic import and_, eq, ge, gt, invert, le, lt, neq, or_, switch, where, xor
    from opkit.core.tensor.shapes.axes import (atleast_1d, atleast_2d, atleast_3d, atleast_Nd, broadcast_arrays,
                                               broadcast_shape, broadcast_to, expand_dims, matrix_transpose, moveaxis,
                                               ravel, roll, squeeze, swapaxes, tile)
    from opkit.core.tensor.shapes.closeness import allclose, isclose
    from opkit.core.tensor.products.matmul import batched_dot, matmul, outer, tensordot
    from opkit.core.tensor.products.vector_products import batched_tensordot, cov, matvec, vecdot, vecmat
    from opkit.core.tensor.shapes.extra_shapes import (ShapeError, concat_with_broadcast, consider_constant, diff,
                                                       extract_diag, geomspace, identity, is_flat, slice_at_axis)
    from opkit.core.tensor.sorting.searching import (ArgSortOp, SearchsortedOp, SortOp, Unique, bincount,
                                                     inverse_permutation, median, permute_row_elements,
                                                     searchsorted, unique)
    from opkit.core.tensor.reductions.statistics import all, any, logsumexp, ptp, std, var
    from opkit.core.tensor.sorting.cumulative import cumprod, cumsum
    from opkit.core.tensor.sorting.sort import argsort, sort
    from opkit.core.tensor.shapes.creation import arange, ones, zeros
    from opkit.core.tensor.shapes.diagonal import (AllocDiag, Eye, ExtractDiag, FillDiagonal, FillDiagonalOffset,
                                                   diag, diagonal, eye, fill_diagonal, fill_diagonal_offset,
                                                   identity_like, trace)
    from opkit.core.tensor.shapes.filled import (Bartlett, bartlett, empty, empty_like, full, full_like, linspace,
                                                 logspace, mgrid, ogrid, tri, tril, triu)
    from opkit.core.tensor.shapes.nonzero import (compress, flatnonzero, nonzero, nonzero_values, tril_indices,
                                                  tril_indices_from, triu_indices, triu_indices_from)
    from opkit.core.tensor.shapes.split import horizontal_stack, split, stacklists, vertical_stack
    from opkit.core.tensor.shapes.unravel import RavelMultiIndex, UnravelIndex, ravel_multi_index, unravel_index
    from opkit.core.tensor.shapes.repeat_take import Choose, Repeat, Take, choose, repeat, take
    from opkit.core.tensor.shapes.inc_subtensor import IncSubtensor, inc_subtensor, set_subtensor
    from opkit.core.tensor.shapes.advanced_inc_subtensor import AdvancedIncSubtensor, AdvancedIncSubtensor1
    from opkit.core.tensor.shapes.advanced_subtensor import AdvancedSubtensor, AdvancedSubtensor1
    from opkit.core.tensor.shapes.take_along_axis import take_along_axis
    from opkit.core.tensor.shapes.advanced_index import (advanced_inc_subtensor, advanced_inc_subtensor1,
                                                         advanced_set_subtensor, advanced_set_subtensor1,
                                                         advanced_subtensor, advanced_subtensor1)
    from opkit.link.jacobian import hessian, jacobian
    from opkit.core.tensor.shapes.join import concatenate, stack
    from opkit.core.tensor.shapes.specify_shape import SpecifyShape, specify_shape
    from opkit.core.tensor.shapes.subtensor import Subtensor
    from opkit.core.tensor.shapes.reshape_dims import join_dims, pack, split_dims, unpack
    from opkit.core.tensor.shapes.vectorize import vectorize
    from opkit.core.tensor.sorting.topk import argtopk, topk, topk_and_argtopk
    from opkit.core.tensor.sorting.interpolate import interp, interpolate1d
    from opkit.core.tensor.products.einsum import einsum
    from opkit.core.tensor.products.linalg import (Cholesky, Det, Eigh, MatrixInverse, SVD, Solve, cholesky, det, eigh,
                                                   matrix_inverse, norm, solve, svd)

    dscalar: TensorType
    dvector: TensorType
    dmatrix: TensorType
    dtensor3: TensorType
    dtensor4: TensorType
    fscalar: TensorType
    fvector: TensorType
    fmatrix: TensorType
    ftensor3: TensorType
    ftensor4: TensorType
    iscalar: TensorType
    ivector: TensorType
    imatrix: TensorType
    itensor3: TensorType
    itensor4: TensorType
    lscalar: TensorType
    lvector: TensorType
    lmatrix: TensorType
    ltensor3: TensorType
    ltensor4: TensorType

__all__ = [
    "TensorType", "TensorVariable", "TensorConstant", "Elemwise", "Sum", "Dot",
    "ScalarFromTensor", "TensorFromScalar",  # and scalar_from_tensor, tensor_from_scalar (not starred: constructors' names)
    "as_tensor_variable", "constant", "upcast", "tensor",
    "scalar", "vector", "matrix", "tensor3", "tensor4",
    "add", "sub", "mul", "true_div", "neg", "exp", "log", "sqr", "sqrt", "maximum", "pow",
    "sum", "dot", "shape", "grad", "Lop", "Rop", *_named_types,
    "specify_shape", "SpecifyShape", *_plural_constructors,
    # rows, cols and ranks 5 to 7 (PyTensor's constructors)
    "row", "col", "tensor5", "tensor6", "tensor7", *_more_named_types, *_more_plural_constructors,
    "abs", "sign", "tanh", "sin", "cos", "log1p", "expm1", "sigmoid", "softplus", "floor", "ceil", "round",
    "minimum", "clip", "int_div", "floor_div", "mod", "lt", "gt", "le", "ge", "eq", "neq", "and_", "or_", "xor",
    "invert", "switch", "where",
    # elementwise and special functions (issue 48)
    "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "bitwise_and", "bitwise_not",
    "bitwise_or", "bitwise_xor", "complex", "complex_from_polar", "conj", "conjugate", "cosh", "deg2rad", "divide",
    "divmod", "equal", "exp2", "greater", "greater_equal", "hypot", "imag", "iround", "isfinite", "isinf", "isnan",
    "isneginf", "isposinf", "largest", "less", "less_equal", "log10", "log2", "logaddexp", "nan_to_num", "negative",
    "not_equal", "power", "rad2deg", "real", "reciprocal", "round_half_away_from_zero", "round_half_to_even", "sinh",
    "smallest", "square", "tan", "true_divide", "trunc", "beta", "betainc", "betaincinv", "betaln", "chi2sf",
    "digamma", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc",
    "gammainccinv", "gammaincinv", "gammal", "gammaln", "gammau", "hyp2f1", "i0", "i1", "iv", "ive", "j0", "j1", "jv",
    "kn", "kv", "kve", "log1mexp", "log1pexp", "logit", "ndtri_exp", "owens_t", "poch", "polygamma", "psi",
    "tri_gamma", "xlog1py", "xlogx", "xlogy", "xlogy0",
    "Cast", "cast", "DimShuffle", "Reshape", "Subtensor", "reshape", "flatten", "transpose", "concatenate",
    "IncSubtensor", "inc_subtensor", "set_subtensor",
    # advanced indexing, take_along_axis, jacobian and hessian (issue 48)
    "AdvancedSubtensor", "AdvancedSubtensor1", "AdvancedIncSubtensor", "AdvancedIncSubtensor1", "take_along_axis",
    "advanced_subtensor", "advanced_subtensor1", "advanced_inc_subtensor", "advanced_inc_subtensor1",
    "advanced_set_subtensor", "advanced_set_subtensor1",
    "jacobian", "hessian",
    "stack", "alloc", "zeros", "ones", "zeros_like", "ones_like", "arange",
    # shape and creation functions (issue 48)
    "broadcast_arrays", "broadcast_shape", "broadcast_to", "expand_dims", "matrix_transpose", "moveaxis", "ravel",
    "roll", "squeeze", "swapaxes", "tile", "AllocDiag", "Eye", "ExtractDiag", "FillDiagonal", "diag", "diagonal",
    "eye", "fill_diagonal", "identity_like", "trace", "Repeat", "Take", "repeat", "take", "empty", "empty_like",
    "full", "full_like", "linspace", "tri", "tril", "triu", "allclose", "isclose", "atleast_1d", "atleast_2d",
    "atleast_3d", "atleast_Nd", "FillDiagonalOffset", "fill_diagonal_offset", "Bartlett", "bartlett", "logspace",
    "horizontal_stack", "split", "vertical_stack", "flatnonzero", "nonzero", "nonzero_values", "tril_indices",
    "tril_indices_from", "triu_indices", "triu_indices_from", "compress", "stacklists",
    "RavelMultiIndex", "UnravelIndex", "ravel_multi_index", "unravel_index", "mgrid", "ogrid",
    "Choose", "choose",
    "Prod", "Max", "Min", "Mean", "Argmax", "Argmin", "prod", "max", "min", "mean", "argmax", "argmin",
    "std", "var", "logsumexp", "any", "all", "ptp", "sort", "argsort", "cumsum", "cumprod",
    "matmul", "outer", "tensordot", "batched_dot",
    # the rest of issue 48's names
    "batched_tensordot", "cov", "matvec", "vecdot", "vecmat", "ArgSortOp", "SearchsortedOp", "SortOp", "Unique",
    "bincount", "inverse_permutation", "median", "permute_row_elements", "searchsorted", "unique", "ShapeError",
    "concat_with_broadcast", "consider_constant", "diff", "extract_diag", "geomspace", "identity", "is_flat",
    "slice_at_axis",
    # PyTensor's reshape helpers, vectorize, einsum and interpolation; Theano's topk
    "join_dims", "pack", "split_dims", "unpack", "vectorize", "einsum", "interp", "interpolate1d", "argtopk", "topk",
    "topk_and_argtopk",
    # numpy.linalg in perform ops (PyTensor's pytensor.tensor.linalg, Theano's theano.tensor.nlinalg)
    "Cholesky", "Det", "Eigh", "MatrixInverse", "SVD", "Solve", "cholesky", "det", "eigh", "matrix_inverse", "norm",
    "solve", "svd",
]

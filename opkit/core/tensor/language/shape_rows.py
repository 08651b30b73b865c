"""The table's shape and creation rows: reshape, transpose, concatenate, diag, eye, tile, repeat, take, ...

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays (also inside a list, for concatenate,
stack) stand for tensor inputs; ints, tuples and strings are passed as they are. The cases cover every dtype,
0-size axes, Fortran, strided and negative-stride inputs, and negative axes.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.shape_examples import (_reshape_examples, _flatten_examples, _transpose_examples,
    _concatenate_examples, _stack_examples, _alloc_examples, _zeros_examples, _like_examples, _arange_examples,
    _specify_shape_examples, _shape_examples, _squeeze_examples, _expand_dims_examples, _swapaxes_examples,
    _moveaxis_examples, _matrix_transpose_examples, _ravel_examples, _broadcast_to_examples,
    _broadcast_arrays_examples, _broadcast_shape_examples, _roll_examples, _tile_examples, _diag_examples,
    _diagonal_examples, _trace_examples, _eye_examples, _identity_like_examples, _fill_diagonal_examples,
    _tri_examples, _triangle_examples, _repeat_examples, _take_examples, _full_examples, _full_like_examples,
    _empty_examples, _linspace_examples, _isclose_examples, _allclose_examples, _atleast_examples,
    _atleast_nd_examples, _split_examples, _hstack_examples, _vstack_examples, _nonzero_examples,
    _flat_nonzero_examples, _tri_indices_examples, _tri_indices_from_examples, _fill_diagonal_offset_examples,
    _logspace_examples, _bartlett_examples, _compress_examples, _stacklists_examples, _unravel_index_examples,
    _ravel_multi_index_examples, _choose_examples, _diff_examples, _concat_with_broadcast_examples,
    _identity_examples, _extract_diag_examples, _geomspace_examples)
from opkit.core.tensor.language.row import ALL_DTYPES, Row

FAMILY = "shape"
SHAPES = "opkit/core/tensor/shapes"


# -- filled arrays -------------------------------------------------------------------------------------------------


def _np_empty_as_zeros(shape, dtype=None):
    return np.zeros(shape, dtype=dtype)


def _np_empty_like_as_zeros(prototype, dtype=None):
    return np.zeros_like(prototype, dtype=dtype)


def _np_alloc(value, *dims):
    return np.broadcast_to(value, dims).copy()


def _np_specify_shape(x, shape):
    return x


def _np_shape(x):
    return np.asarray(np.shape(x), dtype="int64")


def _np_broadcast_shape(*arrays):
    return [np.int64(d) for d in np.broadcast_shapes(*(np.shape(a) for a in arrays))]


def _np_flatten(x, ndim=1):
    return np.reshape(x, x.shape[:ndim - 1] + (int(np.prod(x.shape[ndim - 1:])),))


def _np_squeeze(x, axis=None):
    return np.squeeze(x, axis)


def _np_fill_diagonal(a, val):
    result = a.copy()
    np.fill_diagonal(result, val)
    return result


def _np_zeros_like(x, dtype=None):
    return np.zeros_like(x, dtype=dtype)


def _np_ones_like(x, dtype=None):
    return np.ones_like(x, dtype=dtype)


def _np_tri(N, M=None, k=0, dtype="float64"):
    return np.tri(N, M, k, dtype=dtype)


def _np_eye(n, m=None, k=0, dtype="float64"):
    return np.eye(n, m, k, dtype=dtype)


def _np_identity_like(x, dtype=None):
    return np.eye(x.shape[0], x.shape[1], dtype=dtype if dtype is not None else x.dtype)


def _np_full(shape, fill_value, dtype=None):
    return np.full(shape, fill_value, dtype=dtype)


def _np_repeat(a, repeats, axis=None):
    return np.repeat(a, repeats, axis)


def _np_take(a, indices, axis=None, mode="raise"):
    return np.take(a, indices, axis, mode=mode)


def _np_allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    return np.asarray(np.allclose(a, b, rtol, atol, equal_nan))


def _np_unravel_index(indices, dims, order="C"):
    return tuple(np.asarray(c, dtype="int64") for c in np.unravel_index(indices, dims, order=order))


def _np_ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    return np.asarray(np.ravel_multi_index(multi_index, dims, mode=mode, order=order), dtype="int64")


def _np_stacklists(arg):
    return np.stack([_np_stacklists(a) for a in arg]) if isinstance(arg, (list, tuple)) else arg


def _np_atleast_3d(arry):
    return arry.reshape((1,) * (3 - arry.ndim) + arry.shape) if arry.ndim < 3 else arry


def _np_atleast_nd(arry, n=1, left=True):
    added = (1,) * max(0, n - arry.ndim)
    return arry.reshape(added + arry.shape if left else arry.shape + added)


def _np_split(x, splits_size, n_splits=None, axis=0):
    return np.split(x, np.cumsum(splits_size)[:-1], axis=axis)


def _np_horizontal_stack(*args):
    return np.hstack(args)


def _np_vertical_stack(*args):
    return np.vstack(args)


def _np_nonzero(a, return_matrix=False):
    coordinates = np.nonzero(a)
    return np.stack(coordinates) if return_matrix else coordinates


def _np_nonzero_values(a):
    flat = np.ravel(a)
    return flat[flat != 0]


def _np_fill_diagonal_offset(a, val, offset):
    result = a.copy()
    steps = np.arange(len(np.diagonal(a, offset)))
    result[steps + max(0, -offset), steps + max(0, offset)] = val
    return result


def _np_concat_with_broadcast(tensor_list, axis=0):
    axis = axis % tensor_list[0].ndim
    shape = list(np.broadcast_shapes(*(np.delete(np.shape(t), axis) for t in tensor_list)))
    return np.concatenate([np.broadcast_to(t, shape[:axis] + [t.shape[axis]] + shape[axis:]) for t in tensor_list],
                          axis=axis)


def _np_identity(x):
    return np.array(x, copy=True)


def _np_extract_diag(x):
    return np.diagonal(x)


def _np_geomspace(start, stop, num=50, base=10.0, endpoint=True, dtype=None, axis=0):
    return np.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)


SAME = "the input's dtype"
VIEW_GRAD = "the output gradient moved back (PyTensor's)"
NONE = "none: the result does not depend on the input's values"

ROWS = [
    Row("reshape", np.reshape, SAME, "the output gradient reshaped to x's shape", f"{SHAPES}/reshape.c", FAMILY,
        examples=_reshape_examples, differentiable=True),
    Row("flatten", _np_flatten, SAME, "the output gradient reshaped to x's shape",
        f"{SHAPES}/reshape.c (a Reshape)", FAMILY, examples=_flatten_examples, differentiable=True),
    Row("transpose", np.transpose, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c, templates/view.c.j2", FAMILY,
        examples=_transpose_examples, differentiable=True),
    Row("concatenate", np.concatenate, "numpy's promotion of the inputs' dtypes", "slices of the output gradient",
        "perform: numpy.concatenate", FAMILY, nin=2, examples=_concatenate_examples, differentiable=True,
        notes="the tensors are one list argument"),
    Row("stack", np.stack, "numpy's promotion of the inputs' dtypes", "slices of the output gradient",
        "perform: numpy.concatenate (of DimShuffle views)", FAMILY, nin=2, examples=_stack_examples,
        differentiable=True, notes="the tensors are one list argument"),
    Row("alloc", _np_alloc, "the value's dtype", "the output gradient summed over the broadcast axes",
        f"{SHAPES}/alloc.c, templates/alloc.c.j2", "creation", examples=_alloc_examples, differentiable=True),
    Row("zeros", np.zeros, "`dtype`, else config.floatX (float64)", NONE, f"{SHAPES}/alloc.c (an Alloc)", "creation",
        nin=0, examples=_zeros_examples),
    Row("ones", np.ones, "`dtype`, else config.floatX (float64)", NONE, f"{SHAPES}/alloc.c (an Alloc)", "creation",
        nin=0, examples=_zeros_examples),
    Row("zeros_like", _np_zeros_like, "`dtype`, else x's", NONE, f"{SHAPES}/alloc.c (an Alloc)", "creation",
        examples=_like_examples),
    Row("ones_like", _np_ones_like, "`dtype`, else x's", NONE, f"{SHAPES}/alloc.c (an Alloc)", "creation",
        examples=_like_examples),
    Row("arange", np.arange, "`dtype`, else numpy's of start, stop, step (bool: int64)", NONE,
        "perform: numpy.arange", "creation", nin=0, examples=_arange_examples),
    Row("specify_shape", _np_specify_shape, SAME, "the output gradient", f"{SHAPES}/specify_shape.py (its C)",
        FAMILY, examples=_specify_shape_examples, differentiable=True),
    Row("shape", _np_shape, "int64", NONE, "opkit/core/builtin_ops.py (Shape's C)", FAMILY, examples=_shape_examples),
    # -- axes
    Row("squeeze", _np_squeeze, SAME, VIEW_GRAD, f"{SHAPES}/subtensor.c (a Subtensor view)", FAMILY,
        examples=_squeeze_examples, differentiable=True,
        notes="axis=None drops the axes the type knows to be 1, as PyTensor; a given axis is checked when run"),
    Row("expand_dims", np.expand_dims, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY,
        examples=_expand_dims_examples, differentiable=True),
    Row("swapaxes", np.swapaxes, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY, examples=_swapaxes_examples,
        differentiable=True),
    Row("moveaxis", np.moveaxis, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY, examples=_moveaxis_examples,
        differentiable=True),
    Row("matrix_transpose", np.matrix_transpose, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY,
        examples=_matrix_transpose_examples, differentiable=True),
    Row("ravel", np.ravel, SAME, "the output gradient reshaped to x's shape", f"{SHAPES}/reshape.c", FAMILY,
        examples=_ravel_examples, differentiable=True),
    Row("broadcast_to", np.broadcast_to, SAME, "the output gradient summed over the broadcast axes",
        f"{SHAPES}/alloc.c (an Alloc: a new array, not numpy's read-only view)", FAMILY,
        examples=_broadcast_to_examples, differentiable=True),
    Row("broadcast_arrays", np.broadcast_arrays, "each input's dtype", "each output gradient summed over its "
        "broadcast axes", f"{SHAPES}/alloc.c (Allocs)", FAMILY, nin=2, examples=_broadcast_arrays_examples,
        differentiable=True),
    Row("broadcast_shape", _np_broadcast_shape, "int64 scalars", NONE, "opkit/core/builtin_ops.py (Shape_i's C)",
        FAMILY, nin=2, examples=_broadcast_shape_examples),
    Row("roll", np.roll, SAME, "the output gradient rolled back (slices, PyTensor's)",
        "perform: numpy.concatenate of two Subtensor views", FAMILY, examples=_roll_examples, differentiable=True),
    Row("tile", np.tile, SAME, "the output gradient summed over the copies", f"{SHAPES}/alloc.c, reshape.c",
        FAMILY, examples=_tile_examples, differentiable=True),
    # -- diagonals
    Row("diag", np.diag, SAME, "diagonal of the output gradient (vector input); zeros with the gradient on the "
        "diagonal (matrix input)", f"{SHAPES}/alloc_diag.c, extract_diag.c", FAMILY, examples=_diag_examples,
        differentiable=True),
    Row("diagonal", np.diagonal, SAME, "zeros with the output gradient on the diagonal (ExtractDiagGrad: perform)",
        f"{SHAPES}/extract_diag.c (a view)", FAMILY, examples=_diagonal_examples, differentiable=True),
    Row("trace", np.trace, "numpy's sum dtype of x's (small ints: int64)", "the output gradient on the diagonal",
        f"{SHAPES}/extract_diag.c and the sum's C", FAMILY, examples=_trace_examples, differentiable=True,
        dtypes=tuple(d for d in ALL_DTYPES if d != "float16"), notes="float16 sums differ from numpy's pairwise sum"),
    Row("eye", _np_eye, "`dtype`, else config.floatX (float64)", "undefined (PyTensor's)", f"{SHAPES}/eye.c",
        "creation", nin=0, examples=_eye_examples),
    Row("identity_like", _np_identity_like, "`dtype`, else x's", NONE, f"{SHAPES}/eye.c", "creation",
        examples=_identity_like_examples),
    Row("fill_diagonal", _np_fill_diagonal, "a's dtype (val is cast, as numpy's)", "a: the gradient with a zero "
        "diagonal; val: the sum of the gradient's diagonal (matrices, PyTensor's)", "perform: numpy.fill_diagonal",
        FAMILY, nin=2, examples=_fill_diagonal_examples, differentiable=True),
    Row("tri", _np_tri, "`dtype`, else config.floatX (float64)", NONE, "perform: numpy.arange; the comparison's C",
        "creation", nin=0, examples=_tri_examples),
    Row("tril", np.tril, SAME, "the output gradient below the diagonal", "the elementwise switch's C", FAMILY,
        examples=_triangle_examples, differentiable=True),
    Row("triu", np.triu, SAME, "the output gradient above the diagonal", "the elementwise switch's C", FAMILY,
        examples=_triangle_examples, differentiable=True),
    # -- repeat and take
    Row("repeat", _np_repeat, SAME, "the output gradient summed over the repeats (RepeatGrad: perform)",
        f"{SHAPES}/repeat.c (numpy's PyArray_Repeat)", FAMILY, examples=_repeat_examples, differentiable=True),
    Row("take", _np_take, SAME, "the output gradient added at the indices (TakeGrad: perform, numpy.add.at)",
        f"{SHAPES}/take.c (numpy's PyArray_TakeFrom)", FAMILY, examples=_take_examples, differentiable=True,
        notes="axis=None takes from the flattened input; mode 'raise', 'wrap' or 'clip'"),
    # -- filled arrays
    Row("full", _np_full, "`dtype`, else the fill value's", NONE, f"{SHAPES}/alloc.c (an Alloc)", "creation", nin=0,
        examples=_full_examples),
    Row("full_like", np.full_like, "`dtype`, else a's (the value is cast, as numpy's)", NONE,
        f"{SHAPES}/alloc.c (an Alloc)", "creation", examples=_full_like_examples),
    Row("empty", _np_empty_as_zeros, "`dtype`, else config.floatX (float64)", NONE, f"{SHAPES}/alloc.c (an Alloc)",
        "creation", nin=0, examples=_empty_examples, notes="numpy leaves the values unspecified; opkit's are zeros"),
    Row("empty_like", _np_empty_like_as_zeros, "`dtype`, else x's", NONE, f"{SHAPES}/alloc.c (an Alloc)",
        "creation", examples=_like_examples, notes="numpy leaves the values unspecified; opkit's are zeros"),
    Row("linspace", np.linspace, "`dtype`, else numpy's float of start and stop", "through the elementwise graph",
        "the elementwise ops' C; perform: numpy.arange", "creation", nin=0, examples=_linspace_examples),
    Row("atleast_1d", np.atleast_1d, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY, examples=_atleast_examples,
        differentiable=True),
    Row("atleast_2d", np.atleast_2d, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY, examples=_atleast_examples,
        differentiable=True),
    Row("atleast_3d", _np_atleast_3d, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY, examples=_atleast_examples,
        differentiable=True, notes="PyTensor's: the new axes go on the left (numpy.atleast_3d pads a vector on both "
        "sides)"),
    Row("atleast_Nd", _np_atleast_nd, SAME, VIEW_GRAD, f"{SHAPES}/dimshuffle.c", FAMILY,
        examples=_atleast_nd_examples, differentiable=True),
    Row("split", _np_split, SAME, "each piece's gradient in its place (a Concatenate of Subtensor gradients)",
        f"{SHAPES}/subtensor.c (views) and the checks' C", FAMILY, examples=_split_examples, differentiable=True,
        notes="PyTensor's split(x, splits_size, n_splits, axis): sizes, not numpy's indices"),
    Row("horizontal_stack", _np_horizontal_stack, "numpy's promotion of the inputs' dtypes",
        "slices of the output gradient",
        "perform: numpy.concatenate", FAMILY, nin=2, examples=_hstack_examples, differentiable=True,
        notes="matrices only, as PyTensor's"),
    Row("vertical_stack", _np_vertical_stack, "numpy's promotion of the inputs' dtypes",
        "slices of the output gradient",
        "perform: numpy.concatenate", FAMILY, nin=2, examples=_vstack_examples, differentiable=True,
        notes="matrices only, as PyTensor's"),
    Row("compress", np.compress, "x's dtype", "the output gradient added at the kept slices (TakeGrad)",
        f"{SHAPES}/take.c; perform: numpy.nonzero", FAMILY, nin=2, examples=_compress_examples, differentiable=True),
    Row("stacklists", _np_stacklists, "numpy's promotion of the inputs' dtypes", "slices of the output gradient",
        "perform: numpy.concatenate (of DimShuffle views)", FAMILY, nin=2, examples=_stacklists_examples,
        differentiable=True, notes="nested lists of tensors: one list argument"),
    Row("unravel_index", _np_unravel_index, "int64", NONE, "perform: numpy.unravel_index (as PyTensor's)", FAMILY,
        examples=_unravel_index_examples),
    Row("ravel_multi_index", _np_ravel_multi_index, "int64", NONE, "perform: numpy.ravel_multi_index (as PyTensor's)",
        FAMILY, nin=2, examples=_ravel_multi_index_examples, notes="the coordinate arrays are one tuple argument"),
    Row("choose", np.choose, "the choices' dtype (numpy's promotion of a list)", "none (PyTensor's has none)",
        "perform: numpy.choose (as PyTensor's)", FAMILY, nin=2, examples=_choose_examples),
    Row("nonzero", _np_nonzero, "int64", NONE, "perform: numpy.nonzero (MaskNonzero)", FAMILY,
        examples=_nonzero_examples),
    Row("flatnonzero", np.flatnonzero, "int64", NONE, "perform: numpy.nonzero (MaskNonzero)", FAMILY,
        examples=_flat_nonzero_examples),
    Row("nonzero_values", _np_nonzero_values, SAME, "the output gradient added at the nonzero elements (TakeGrad)",
        f"{SHAPES}/take.c; perform: numpy.nonzero", FAMILY, examples=_flat_nonzero_examples),
    Row("tril_indices", np.tril_indices, "int64", NONE, "perform: numpy.nonzero of tri", "creation", nin=0,
        examples=_tri_indices_examples),
    Row("triu_indices", np.triu_indices, "int64", NONE, "perform: numpy.nonzero of tri", "creation", nin=0,
        examples=_tri_indices_examples),
    Row("tril_indices_from", np.tril_indices_from, "int64", NONE, "perform: numpy.nonzero of tri", "creation",
        examples=_tri_indices_from_examples),
    Row("triu_indices_from", np.triu_indices_from, "int64", NONE, "perform: numpy.nonzero of tri", "creation",
        examples=_tri_indices_from_examples),
    Row("fill_diagonal_offset", _np_fill_diagonal_offset, "a's dtype (val is cast)", "a: the gradient with a zero "
        "diagonal; val: the sum of its diagonal; offset: undefined (PyTensor's)", "perform: numpy indexing", FAMILY,
        nin=2, examples=_fill_diagonal_offset_examples, differentiable=True),
    Row("logspace", np.logspace, "`dtype`, else numpy's float of start and stop", "through the elementwise graph",
        "the elementwise ops' C (pow)", "creation", nin=0, examples=_logspace_examples),
    Row("bartlett", np.bartlett, "float64", NONE, "perform: numpy.bartlett (as PyTensor's)", "creation", nin=0,
        examples=_bartlett_examples),
    Row("isclose", np.isclose, "bool", "none (a comparison)", "the elementwise comparisons' C, fused", "logic",
        nin=2, examples=_isclose_examples),
    Row("allclose", _np_allclose, "bool (0-d)", "none (a comparison)", "the elementwise comparisons' C and a sum",
        "logic", nin=2, examples=_allclose_examples),
    Row("diff", np.diff, SAME + " (bool: x[i + 1] != x[i], numpy's)", "through its graph (slices subtracted)",
        f"{SHAPES}/subtensor.c (views) and the elementwise sub's C", FAMILY, examples=_diff_examples,
        differentiable=True, notes="n times the difference of neighbours along `axis`; unsigned ints wrap"),
    Row("concat_with_broadcast", _np_concat_with_broadcast, "numpy's promotion of the inputs' dtypes",
        "slices of the output gradient, summed over the broadcast axes", f"{SHAPES}/alloc.c (broadcast_to); "
        "perform: numpy.concatenate", FAMILY, nin=2, examples=_concat_with_broadcast_examples,
        differentiable=True, notes="PyTensor's: the other axes broadcast first (length-1 axes the types know)"),
    Row("identity", _np_identity, SAME, "the output gradient", "opkit/core/builtin_ops.py (DeepCopyOp's C)",
        FAMILY, examples=_identity_examples, differentiable=True,
        notes="PyTensor's identity (its tensor_copy): a copy, never a view of x"),
    Row("extract_diag", _np_extract_diag, SAME, "zeros with the output gradient on the diagonal",
        f"{SHAPES}/extract_diag.c (a view)", FAMILY, examples=_extract_diag_examples, differentiable=True,
        notes="PyTensor's deprecated name of diagonal(x): the main diagonal of the first two axes"),
    Row("geomspace", _np_geomspace, "`dtype`, else float64 (numpy's; complex start or stop raises TypeError)",
        "through the elementwise graph",
        "the elementwise ops' C (log10, pow, sign)", "creation", nin=0, examples=_geomspace_examples,
        notes="PyTensor's signature (`base` only changes the rounding); a zero endpoint gives NaN (numpy raises)"),
]

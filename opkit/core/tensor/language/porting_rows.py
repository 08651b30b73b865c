"""The table's rows of the names ports reach for beyond numpy's core: PyTensor's reshape helpers (join_dims,
split_dims, pack, unpack), einsum, interp and interpolate1d, vectorize, and Theano's topk family.

Rows whose function does not map arrays to arrays the way the reference does say how to call it in
``extra["apply"]``: ``apply(function, *tensors, **kwargs)`` returns the outputs compared with the reference's
(pack's packed shapes as int64 vectors, interpolate1d's function applied to the query points, vectorize's
function with the batch axes given static lengths).
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise import basic
from opkit.core.tensor.language.example_inputs import LAYOUTS
from opkit.core.tensor.language.reduction_rows import values
from opkit.core.tensor.language.row import ALL_DTYPES, Row
from opkit.core.tensor.reductions import reduction
from opkit.core.tensor.shapes.specify_shape import specify_shape

SHAPES = "opkit/core/tensor/shapes"
NUMERIC = tuple(d for d in ALL_DTYPES if d != "bool")


# -- join_dims, split_dims, pack, unpack ----------------------------------------------------------------------------

def _np_join_dims(x, start_axis=0, n_axes=None):
    start = start_axis + max(1, x.ndim) if start_axis < 0 else start_axis
    n_axes = x.ndim - start if n_axes is None else n_axes
    return x.reshape(*x.shape[:start], -1 if n_axes else 1, *x.shape[start + n_axes:])


def _join_dims_examples(rng):
    cases = [((values(rng, (2, 3, 4), d),), dict(({}, {"start_axis": 1}, {"start_axis": 0, "n_axes": 2},
                                                  {"start_axis": -2, "n_axes": 1}, {"start_axis": 1, "n_axes": 0})[i % 5]))
             for i, d in enumerate(ALL_DTYPES)]
    cases += [((layout(values(rng, (3, 4, 2), "float64")),), {"start_axis": 1}) for layout in LAYOUTS]
    cases += [((values(rng, (0, 3), "float32"),), {}), ((values(rng, (), "int64"),), {"start_axis": 0, "n_axes": 0})]
    return cases


def _np_split_dims(x, shape, axis=0):
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    axis %= x.ndim
    return x.reshape(*x.shape[:axis], *shape, *x.shape[axis + 1:])


def _split_dims_examples(rng):
    cases = [((values(rng, (6, 4), d), ((2, 3), (3, 2), (6,), [1, 6, 1])[i % 4]), {}) for i, d in enumerate(ALL_DTYPES)]
    cases += [((values(rng, (3, 6), "float64"), (2, 3)), {"axis": -1}),
              ((values(rng, (1, 5), "int8"), ()), {"axis": 0}),
              ((values(rng, (4, 0), "float32"), (2, 2)), {"axis": 0})]
    cases += [((layout(values(rng, (4, 6), "float64")), (3, 2)), {"axis": 1}) for layout in LAYOUTS]
    return cases


def _np_pack(*tensors, keep_axes=None):
    before, after = _kept(keep_axes)
    raveled, shapes = [], []
    for t in tensors:
        middle = t.shape[before:t.ndim - after]
        shapes.append(np.asarray(middle, dtype="int64"))
        raveled.append(t.reshape(*t.shape[:before], int(np.prod(middle, dtype=np.int64)), *t.shape[t.ndim - after:]))
    return [np.concatenate(raveled, axis=before), *shapes]


def _kept(keep_axes):
    if keep_axes is None:
        return 0, 0
    axes = (keep_axes,) if np.ndim(keep_axes) == 0 else tuple(keep_axes)
    return sum(a >= 0 for a in axes), sum(a < 0 for a in axes)


def _apply_pack(pack, *tensors, **kwargs):
    packed, shapes = pack(*tensors, **kwargs)
    return [packed, *shapes]


def _pack_examples(rng):
    cases = [((values(rng, (2, 3), d), values(rng, (4,), d)), {}) for d in ("bool", "int8", "uint16", "float32")]
    cases += [((values(rng, (2, 3), "float64"), values(rng, (2, 5, 2), "float64")), {"keep_axes": 0}),
              ((values(rng, (4, 2, 3), "int32"), values(rng, (5, 2, 3), "int32")), {"keep_axes": (-2, -1)}),
              ((values(rng, (2, 4, 3), "float64"), values(rng, (2, 5, 3), "float64")), {"keep_axes": (0, -1)}),
              ((values(rng, (2, 3), "float64"),), {"keep_axes": -1}),
              ((fortran_values(rng), values(rng, (3, 0), "float64")), {"keep_axes": 0})]
    return cases


def fortran_values(rng):
    return np.asfortranarray(values(rng, (3, 4, 2), "float64"))


def _np_unpack(packed, packed_shapes, keep_axes=None):
    if keep_axes is None:
        axis = 0
    else:
        kept = {a % packed.ndim for a in ((keep_axes,) if np.ndim(keep_axes) == 0 else keep_axes)}
        axis = next(i for i in range(packed.ndim) if i not in kept)
    sizes = np.cumsum([int(np.prod(s, dtype=np.int64)) for s in packed_shapes])[:-1]
    return [_np_split_dims(piece, s, axis) for piece, s in zip(np.split(packed, sizes, axis=axis), packed_shapes)]


def _unpack_examples(rng):
    cases = [((values(rng, (10,), d), [(2, 3), (4,)]), {}) for d in ("bool", "int16", "uint8", "float32")]
    cases += [((values(rng, (2, 13), "float64"), [(3,), (5, 2)]), {"keep_axes": 0}),
              ((values(rng, (9, 2, 3), "int64"), [(4,), (5,)]), {"keep_axes": (-2, -1)}),
              ((values(rng, (2, 9, 3), "float64"), [(4,), (5,)]), {"keep_axes": (0, -1)}),
              ((values(rng, (6,), "float64"), [(2, 3)]), {})]
    cases += [((layout(values(rng, (3, 8), "float64")), [(2, 2), (4,)]), {"keep_axes": 0}) for layout in LAYOUTS]
    return cases


# -- einsum -----------------------------------------------------------------------------------------------------------

_SPECS = ("ij,jk->ik", "ij,jk", "i,i", "i,j->ij", "ij->ji", "ii->i", "ii", "ij->", "bij,bjk->bik", "...ij,jk->...ik",
          "ijk,k", "ij,ij->i", "ba,cb->ac")


def _operand_shapes(spec, sizes):
    inputs = spec.split("->")[0].split(",")
    return [tuple(3 for _ in range(2)) + tuple(sizes[c] for c in part.replace("...", "")) if "..." in part
            else tuple(sizes[c] for c in part) for part in inputs]


def _einsum_examples(rng):
    sizes = {"i": 3, "j": 4, "k": 2, "b": 2, "a": 3, "c": 5}
    cases = []
    for n, spec in enumerate(_SPECS):
        dtype = ("float64", "float32", "int32", "float64", "int8", "float64", "uint16", "int64", "float64", "float64",
                 "float32", "float64", "int16")[n]
        cases.append(((spec, *[values(rng, s, dtype) for s in _operand_shapes(spec, sizes)]), {}))
    cases.append((("ij,jk->ik", values(rng, (3, 4), "float32"), values(rng, (4, 2), "float64")), {}))  # upcast
    cases.append((("ij,jk->ik", values(rng, (3, 0), "float64"), values(rng, (0, 2), "float64")), {}))  # empty sum
    cases += [(("ij,jk->ik", layout(values(rng, (3, 4), "float64")), values(rng, (4, 2), "float64")), {})
              for layout in LAYOUTS]
    return cases


def _np_einsum(subscripts, *operands, optimize=None):
    return np.einsum(subscripts, *operands)


# -- interp, interpolate1d ----------------------------------------------------------------------------------------

def _np_interp(x, xp, fp, left=None, right=None, period=None):
    """numpy.interp in the inputs' result type (numpy's is always float64)."""
    return np.asarray(np.interp(x, xp, fp, left, right), dtype=np.result_type(x, xp, fp))


def _interp_examples(rng):
    xp = np.sort(values(rng, (6,), "float64"))
    xp[1] = xp[0] + 0.5  # no two equal points: their slope is undefined
    between = np.concatenate([xp[:-1] + np.diff(xp) / 3, [xp[0] - 1.0, xp[-1] + 2.0]])  # no knot: no kink
    knots = np.concatenate([xp, between, [xp[0] - 0.5]])
    cases = [((between, xp, values(rng, (6,), "float64")), {}),
             ((between.reshape(7, 1), xp, values(rng, (6,), "float64")), {"left": -7.0, "right": 9.5}),
             ((knots.reshape(2, 7), xp, values(rng, (6,), "float64")), {"left": -7.0, "right": 9.5}),
             ((knots.astype("float32"), xp.astype("float32"), values(rng, (6,), "float32")), {}),
             ((np.float64(xp[2] + 0.25), xp, values(rng, (6,), "float64")), {}),
             ((np.asfortranarray(knots.reshape(7, 2)), xp, values(rng, (6,), "float64")), {"left": 0.0})]
    return [((np.asarray(a), *rest), kw) for (a, *rest), kw in cases]


def _np_interpolate1d(x, y, x_hat, method="linear", left_pad=None, right_pad=None, extrapolate=True):
    """PyTensor's interpolate1d(x, y, method, ...)(x_hat), in numpy (x sorted with y)."""
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    n = len(x)
    idx = np.searchsorted(x, x_hat)
    at = np.clip(idx, 1, n - 1)
    if method == "linear":
        y_hat = y[at - 1] + (x_hat - x[at - 1]) / (x[at] - x[at - 1]) * (y[at] - y[at - 1])
    elif method == "nearest":
        y_hat = np.where(x_hat - x[at - 1] <= x[at] - x_hat, y[at - 1], y[at])
    elif method == "first":
        y_hat = y[np.clip(idx - 1, 0, n - 1)]
    elif method == "last":
        y_hat = y[np.clip(idx, 0, n - 1)]
    else:
        y_hat = (y[at - 1] + y[at]) / 2
    if not extrapolate:
        left = y[0] if left_pad is None else left_pad
        right = y[-1] if right_pad is None else right_pad
        y_hat = np.where(x_hat < x[0], left, np.where(x_hat > x[-1], right, y_hat))
    return np.asarray(y_hat, dtype=np.result_type(x, y, x_hat))


def _apply_interpolate1d(interpolate1d, x, y, x_hat, **kwargs):
    return interpolate1d(x, y, **kwargs)(x_hat)


def _interpolate1d_examples(rng):
    x = values(rng, (7,), "float64")
    x_hat = np.linspace(x.min() - 1, x.max() + 1, 16).reshape(4, 4)  # off the knots: no kink for verify_grad
    cases = []
    for n, method in enumerate(("linear", "nearest", "first", "last", "mean")):
        y = values(rng, (7,), "float64")
        cases.append(((x, y, x_hat), {"method": method, "extrapolate": n % 2 == 0}))
    cases.append(((x, values(rng, (7,), "float64"), x_hat), {"method": "linear", "extrapolate": False,
                                                              "left_pad": -5.0, "right_pad": 5.0}))
    cases.append(((x, values(rng, (7,), "float64"), np.concatenate([x, x_hat.ravel()])), {"method": "nearest"}))
    cases.append(((x.astype("float32"), values(rng, (7,), "float32"), x_hat.astype("float32")), {}))
    return cases


# -- vectorize --------------------------------------------------------------------------------------------------------

def _softmax(x):
    return basic.exp(x - reduction.max(x)) / reduction.sum(basic.exp(x - reduction.max(x)))


def _first_and_last(x):
    return x[0], x[-1]


def _matvec(a, b):
    return basic.dot(a, b)


def _np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


_VECTORIZED = {"softmax": (_softmax, "(a)->(a)", _np_softmax),
               "first_and_last": (_first_and_last, "(a)->(),()", lambda x: [x[..., 0], x[..., -1]]),
               "matvec": (_matvec, "(m,n),(n)->(m)", lambda a, b: np.einsum("...mn,...n->...m", a, b)),
               "scalar": (lambda x: x * 2 + 1, None, lambda x: x * 2 + 1)}


def _np_vectorize(*arrays, func, shapes):
    return _VECTORIZED[func][2](*arrays)


def _apply_vectorize(vectorize, *tensors, func, shapes):
    """vectorize(func, signature) applied to the tensors given their static `shapes` (batch lengths must be known)."""
    core, signature, _ = _VECTORIZED[func]
    return vectorize(core, signature)(*(specify_shape(t, shape) for t, shape in zip(tensors, shapes)))


def _vectorize_examples(rng):
    cases = [((values(rng, (2, 4), "float64"),), "softmax"), ((values(rng, (3, 2, 5), "float32"),), "softmax"),
             ((values(rng, (3, 4), "int16"),), "first_and_last"),
             ((values(rng, (3, 2, 4), "float64"), values(rng, (1, 4), "float64")), "matvec"),
             ((values(rng, (2, 4), "float64"), values(rng, (4,), "float64")), "matvec"),
             ((values(rng, (2, 3), "int32"),), "scalar")]
    return [(arrays, {"func": func, "shapes": [a.shape for a in arrays]}) for arrays, func in cases]


# -- topk, argtopk, topk_and_argtopk ------------------------------------------------------------------------------

def _np_topk_indices(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    if axis is None:
        x, axis = x.reshape(-1), 0
    order = np.argsort(x, axis=axis, kind="stable")
    if kth > 0:
        taken = np.take(np.flip(order, axis), np.arange(kth), axis=axis)
    else:
        taken = np.take(order, np.arange(-kth), axis=axis)
    return x, axis, taken.astype(idx_dtype)


def _np_topk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    x, axis, taken = _np_topk_indices(x, kth, axis, sorted, idx_dtype)
    return np.take_along_axis(x, taken, axis=axis)


def _np_argtopk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    return _np_topk_indices(x, kth, axis, sorted, idx_dtype)[2]


def _np_topk_and_argtopk(x, kth, axis=-1, sorted=True, idx_dtype="int64"):
    x, axis, taken = _np_topk_indices(x, kth, axis, sorted, idx_dtype)
    return [np.take_along_axis(x, taken, axis=axis), taken]


def _topk_examples(rng):
    options = ({"axis": -1}, {"axis": 0}, {"axis": None}, {"axis": 1, "idx_dtype": "int32"})
    cases = [((values(rng, (3, 5), d), (2, -2, 4, 1)[i % 4]), dict(options[i % 4])) for i, d in enumerate(ALL_DTYPES)]
    special = values(rng, (2, 6), "float64")
    special[0, [1, 4]] = np.nan
    special[1, [0, 2]] = [np.inf, -np.inf]
    ties = values(rng, (3, 6), "int8", -2, 2)
    cases += [((special, 3), {}), ((special, -3), {}), ((ties, 4), {"axis": 1}), ((ties, -5), {"axis": 1}),
              ((values(rng, (2, 3, 4), "float32"), 3), {"axis": 1}), ((values(rng, (5,), "float64"), 5), {})]
    cases += [((layout(values(rng, (4, 5), "float64")), 2), {"axis": 0}) for layout in LAYOUTS]
    return cases


_INDEXING = "argsort's C (opkit/core/tensor/sorting/argsort.c), reversed and sliced, then take_along_axis's"

ROWS = [
    Row("join_dims", _np_join_dims, "x's", "reshape's: the output gradient reshaped back",
        f"reshape's ({SHAPES}/reshape.py): a view", "shape", examples=_join_dims_examples, differentiable=True,
        notes="PyTensor's; n_axes=0 inserts a length-1 axis; a scalar counts as having one axis"),
    Row("split_dims", _np_split_dims, "x's", "reshape's: the output gradient reshaped back",
        f"reshape's ({SHAPES}/reshape.py): a view", "shape", examples=_split_dims_examples, differentiable=True,
        notes="PyTensor's; shape: ints, int scalars or an int vector of known length; () drops a length-1 axis"),
    Row("pack", _np_pack, "the tensors' result type (concatenate's); the packed shapes int64",
        "concatenate's and reshape's: each tensor's part of the output gradient", "Join's and reshape's",
        "shape", examples=_pack_examples, extra={"apply": _apply_pack},
        notes="PyTensor's; returns (packed, [each tensor's raveled shape]); keep_axes as PyTensor's rules"),
    Row("unpack", _np_unpack, "packed's", "split's and reshape's", "split's (subtensor views) and reshape's",
        "shape", examples=_unpack_examples, differentiable=True, notes="PyTensor's; the inverse of pack"),
    Row("einsum", _np_einsum, "numpy's: the operands' result type (ints wrap in their own type)",
        "the pieces': diagonal, dimshuffle, mul and sum", "Elemwise mul fused into Sum's loop (no BLAS call)",
        "product", examples=_einsum_examples, differentiable=True,
        extra={"rtol": {"float32": 1e-4}, "default_fast_run": False},
        notes="numpy's subscripts: '->', '...', repeated letters (diagonals); optimize= is ignored"),
    Row("interp", _np_interp, "the inputs' result type (numpy.interp's is always float64)",
        "to x, xp and fp through the linear pieces (PyTensor's graph); zero through searchsorted",
        "searchsorted (perform: numpy.searchsorted), indexing and Elemwise C", "sort", nin=3,
        examples=_interp_examples, differentiable=True,
        extra={"rtol": {"float32": 1e-5}, "default_fast_run": False},
        notes="numpy.interp: xp increasing; left/right outside [xp[0], xp[-1]]; period= is not supported"),
    Row("interpolate1d", _np_interpolate1d, "the result type of x, y and x_hat",
        "to x_hat, y and (linear) x through the pieces; zero through searchsorted",
        "argsort's C, searchsorted (perform), indexing and Elemwise C", "sort", nin=3,
        examples=_interpolate1d_examples, differentiable=True,
        extra={"apply": _apply_interpolate1d, "default_fast_run": False},
        notes="PyTensor's: returns a function of x_hat; methods linear, nearest, first, last, mean"),
    Row("vectorize", _np_vectorize, "func's", "func's graph's, through indexing and stack",
        "func's graph's; the batch is unrolled (static batch lengths)", "shape",
        examples=_vectorize_examples, extra={"apply": _apply_vectorize, "default_fast_run": False},
        notes="PyTensor's vectorize(func, signature) without Blockwise: batch axes of known length, unrolled"),
    Row("topk", _np_topk, "x's", "take_along_axis's: the output gradient put back where the values came from "
        "(Theano's TopKOp.L_op)", _INDEXING, "sort", examples=_topk_examples, differentiable=True,
        notes="Theano's; kth < 0: the smallest; largest first (smallest first for kth < 0), whatever sorted= says"),
    Row("argtopk", _np_argtopk, "idx_dtype (int64)", "none (indices)", _INDEXING, "sort", examples=_topk_examples,
        extra={"default_fast_run": False},  # topk's graph, which the default run compiles
        notes="Theano's; among ties the later index first for kth > 0, the earlier for kth < 0; NaN largest"),
    Row("topk_and_argtopk", _np_topk_and_argtopk, "x's; the indices idx_dtype", "topk's for the values",
        _INDEXING, "sort", examples=_topk_examples, extra={"default_fast_run": False},
        notes="Theano's: [topk, argtopk] of one argsort"),
]

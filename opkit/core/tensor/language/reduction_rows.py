"""The table's reduction rows: sum, prod, mean, max, min, argmax, argmin, var, std, logsumexp, any, all, ptp,
median, bincount.

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays stand for tensor inputs, the other
values (axis, keepdims, ddof) are passed as they are. The cases cover every dtype (one case each, the axis
and keepdims varying from dtype to dtype), 0-size axes, and Fortran, strided and negative-stride inputs.
The input helpers here (`values`, `LAYOUTS`, `per_dtype`) serve product_rows and sort_rows too.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.special

from opkit.core.tensor.language.row import ALL_DTYPES, Row

FAMILY = "reduction"
REDUCTIONS = "opkit/core/tensor/reductions"
REAL_DTYPES = tuple(d for d in ALL_DTYPES if d != "bool")


# -- inputs --------------------------------------------------------------------------------------------------------

def values(rng, shape, dtype, low=-20, high=20):
    """A C-ordered array of `shape` and `dtype`: small integers (unsigned from 0), normal floats, random bools."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else low, high, size=shape).astype(dtype)
    return (rng.standard_normal(size=shape) * 2).astype(dtype)


def fortran(a):
    """`a`'s values in Fortran order."""
    return np.asfortranarray(a)


def strided(a):
    """`a`'s values in a view of every other element of a longer last axis."""
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    wide[..., ::2] = a
    return wide[..., ::2]


def reversed_view(a):
    """`a`'s values in a view with a negative stride on its first axis."""
    return np.ascontiguousarray(a[::-1])[::-1]


LAYOUTS = (fortran, strided, reversed_view)


def per_dtype(rng, dtypes, shape, options):
    """One case per dtype: an array of `shape`, with the kwargs of `options` taken in turn."""
    return [((values(rng, shape, d),), dict(options[i % len(options)])) for i, d in enumerate(dtypes)]


def layouts(rng, shape, dtype, kwargs):
    """One case per layout (Fortran, strided, negative stride) of a `dtype` array of `shape`."""
    return [((layout(values(rng, shape, dtype)),), dict(kwargs)) for layout in LAYOUTS]


# -- examples ------------------------------------------------------------------------------------------------------

_AXES = ({"axis": None}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": (0, 1)}, {"axis": -1})


def _reduce_examples(dtypes, empty_ok):
    def examples(rng):
        cases = per_dtype(rng, dtypes, (3, 4), _AXES)
        cases += [((values(rng, (2, 3, 4), "float64"),), {"axis": (0, 2)}),
                  ((values(rng, (2, 3, 4), "int32"),), {"axis": -2, "keepdims": True})]
        cases += layouts(rng, (3, 5), "float64", {"axis": 0}) + layouts(rng, (4, 3), "int16", {"axis": 1})
        cases.append(((values(rng, (0, 3), "float32"),), {"axis": 1}))  # 0-size output
        if empty_ok:  # an identity over a 0-size axis (max, min, argmax, argmin raise there)
            cases += [((values(rng, (0, 3), "float64"),), {"axis": 0}), ((values(rng, (2, 0), "int8"),), {})]
        return cases

    return examples


def _arg_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 4), ({"axis": None}, {"axis": 1}, {"axis": 0, "keepdims": True},
                                                 {"axis": -1}))
    cases += layouts(rng, (3, 5), "float64", {"axis": 0}) + [((values(rng, (0, 3), "int64"),), {"axis": 1})]
    return cases


def _var_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 4), ({"axis": None}, {"axis": 1, "ddof": 1}, {"axis": 0, "keepdims": True},
                                                 {"axis": (0, 1), "ddof": 2}, {"axis": -1}))
    cases += layouts(rng, (3, 5), "float64", {"axis": 0}) + layouts(rng, (4, 3), "int16", {"axis": 1, "ddof": 1})
    cases += [((values(rng, (0, 3), "float64"),), {"axis": 1}),
              ((values(rng, (2, 3, 4), "float32"),), {"axis": (0, 2)})]
    return cases


def _logsumexp_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 4), _AXES)
    big = values(rng, (2, 3), "float64") * 400  # would overflow exp without the shift by the maximum
    special = np.array([[np.inf, 1.0], [-np.inf, -np.inf], [np.nan, 0.0]])
    cases += [((big,), {"axis": 1}), ((special,), {"axis": 1})]
    cases += layouts(rng, (3, 5), "float64", {"axis": 0}) + [((values(rng, (0, 3), "float64"),), {"axis": 0})]
    return cases


def _ptp_examples(rng):
    cases = per_dtype(rng, REAL_DTYPES, (3, 4), ({"axis": None}, {"axis": 1}, {"axis": 0, "keepdims": True}))
    return cases + layouts(rng, (3, 5), "float64", {"axis": 0}) + [((values(rng, (0, 3), "float64"),), {"axis": 1})]


# -- references ----------------------------------------------------------------------------------------------------

def _np_mean(x, axis=None, keepdims=False):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.mean(x, axis=axis, keepdims=keepdims)


def _np_var(x, axis=None, ddof=0, keepdims=False):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _np_std(x, axis=None, ddof=0, keepdims=False):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.std(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _np_arg(function):
    def reference(x, axis=None, keepdims=False):
        if isinstance(axis, tuple) or axis is None:
            axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
            kept = [a for a in range(x.ndim) if a not in axes]
            flat = np.transpose(x, kept + list(axes)).reshape([x.shape[a] for a in kept] + [-1])
            result = function(flat, axis=-1)
            return result.reshape([1 if a in axes else x.shape[a] for a in range(x.ndim)]) if keepdims else result
        return function(x, axis=axis, keepdims=keepdims)

    reference.__name__ = function.__name__
    return reference


def _scipy_logsumexp(x, axis=None, keepdims=False):
    with np.errstate(all="ignore"):
        return scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)


def _median_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 4), ({"axis": None}, {"axis": 1}, {"axis": 0}, {"axis": (0, 1)},
                                                 {"axis": -1}))
    special = values(rng, (3, 5), "float64")
    special[0, 1], special[2, 4] = np.nan, np.inf
    cases += [((special,), {"axis": 1}), ((values(rng, (2, 3, 4), "float32"),), {"axis": (0, 2)}),
              ((values(rng, (5,), "int16"),), {}), ((values(rng, (), "float64"),), {})]
    cases += layouts(rng, (3, 5), "float64", {"axis": 0}) + layouts(rng, (4, 3), "int32", {"axis": 1})
    return cases


def _bincount_examples(rng):
    dtypes = [d for d in ALL_DTYPES if np.dtype(d).kind in "biu"]
    cases = [((values(rng, (7,), d, 0, 6),), {}) for d in dtypes]
    x = values(rng, (6,), "int64", 0, 5)
    cases += [((x, values(rng, (6,), "float64")), {}), ((x, values(rng, (6,), "float32")), {"minlength": 9}),
              ((x,), {"minlength": 2}), ((np.zeros(0, "int32"),), {}), ((np.zeros(0, "int8"),), {"minlength": 3}),
              ((values(rng, (5,), "uint8", 0, 4), values(rng, (5,), "int16")), {}),
              ((x,), {"assert_nonneg": True})]
    cases += [((layout(values(rng, (6,), "int32", 0, 4)), values(rng, (6,), "float64")), {}) for layout in LAYOUTS]
    return cases


def _np_bincount(x, weights=None, minlength=None, assert_nonneg=False):
    return np.bincount(x, weights, minlength=minlength or 0)


_NO_GRAD_INT = "; integer inputs get a zero gradient"

ROWS = [
    Row("sum", np.sum, "numpy's accumulator: bool and small ints int64, small uints uint64, floats their own",
        "the output gradient broadcast back over the summed axes" + _NO_GRAD_INT,
        f"{REDUCTIONS}/reduction.c, templates/reduction.c.j2", FAMILY, examples=_reduce_examples(ALL_DTYPES, True),
        differentiable=True),
    Row("prod", np.prod, "numpy's accumulator, as sum", "g times the product of the other terms (exact with zeros: "
        "ProdGrad)" + _NO_GRAD_INT, f"{REDUCTIONS}/reduction.c, templates/reduction.c.j2", FAMILY,
        examples=_reduce_examples(ALL_DTYPES, True), differentiable=True),
    Row("mean", _np_mean, "float64 for bool and integers, floats their own",
        "the output gradient broadcast back, divided by the count", f"{REDUCTIONS}/reduction.c, "
        "templates/reduction.c.j2", FAMILY, examples=_reduce_examples(ALL_DTYPES, True), differentiable=True),
    Row("max", np.max, "x's", "the output gradient at every position equal to the maximum (ties all get it)",
        f"{REDUCTIONS}/reduction.c, templates/reduction.c.j2", FAMILY, examples=_reduce_examples(ALL_DTYPES, False),
        differentiable=True, notes="a 0-size reduced axis raises ValueError (numpy's)"),
    Row("min", np.min, "x's", "the output gradient at every position equal to the minimum (ties all get it)",
        f"{REDUCTIONS}/reduction.c, templates/reduction.c.j2", FAMILY, examples=_reduce_examples(ALL_DTYPES, False),
        differentiable=True, notes="a 0-size reduced axis raises ValueError (numpy's)"),
    Row("argmax", _np_arg(np.argmax), "int64", "zero (an index has no derivative; PyTensor's)",
        f"{REDUCTIONS}/reduction.c, templates/reduction_arg.c.j2 (float16, complex: perform)", FAMILY,
        examples=_arg_examples, notes="several axes: the index into their flattened product"),
    Row("argmin", _np_arg(np.argmin), "int64", "zero (an index has no derivative; PyTensor's)",
        f"{REDUCTIONS}/reduction.c, templates/reduction_arg.c.j2 (float16, complex: perform)", FAMILY,
        examples=_arg_examples, notes="several axes: the index into their flattened product"),
    Row("var", _np_var, "float64 for bool and integers, floats their own", "through its graph (mean, sub, sqr, sum)",
        f"{REDUCTIONS}/statistics.py: a graph of Mean/Sum and elementwise nodes (fused, their C)", FAMILY,
        examples=_var_examples, differentiable=True,
        notes="ddof divides by N - ddof (numpy's rule); corrected=True subtracts PyTensor's two-pass correction"),
    Row("std", _np_std, "float64 for bool and integers, floats their own", "through its graph (sqrt of var)",
        f"{REDUCTIONS}/statistics.py: a graph of Mean/Sum and elementwise nodes (fused, their C)", FAMILY,
        examples=_var_examples, differentiable=True),
    Row("logsumexp", _scipy_logsumexp, "float64 for bool and integers (scipy's), floats their own",
        "through its graph: softmax of x times the output gradient",
        f"{REDUCTIONS}/statistics.py: max (over x and -inf), exp, sum, log (fused, their C)", FAMILY,
        examples=_logsumexp_examples, differentiable=True,
        notes="the maximum is subtracted first (no overflow); a 0-size axis gives -inf, as scipy"),
    Row("any", np.any, "bool", "zero (a comparison has no derivative)",
        f"{REDUCTIONS}/statistics.py: sum of x != 0, > 0 (fused, their C)", FAMILY,
        examples=_reduce_examples(ALL_DTYPES, True)),
    Row("all", np.all, "bool", "zero (a comparison has no derivative)",
        f"{REDUCTIONS}/statistics.py: sum of x == 0, == 0 (fused, their C)", FAMILY,
        examples=_reduce_examples(ALL_DTYPES, True)),
    Row("ptp", np.ptp, "x's (bool raises TypeError, as numpy)", "through its graph (max - min)",
        f"{REDUCTIONS}/statistics.py: max - min (their C)", FAMILY, dtypes=REAL_DTYPES, examples=_ptp_examples,
        differentiable=True),
    Row("median", np.median, "float64 for bool and integers, floats their own",
        "through its graph (sort's gradient: the middle values' gradients, halved for an even count)",
        "opkit/core/tensor/sorting/searching.py: sort (its C) and indexing of the middle", FAMILY,
        examples=_median_examples, differentiable=True,
        notes="NaN where a lane holds NaN (numpy's); a 0-size lane raises IndexError (numpy gives NaN)"),
    Row("bincount", _np_bincount, "int64 counts; float64 with weights (numpy's)",
        "weights: the output gradient at each x (an advanced index); x: none",
        "opkit/core/tensor/sorting/searching.py: max (its C) and an advanced increment (AdvancedIncSubtensor1's C)",
        FAMILY, nin=2, examples=_bincount_examples, differentiable=True,
        notes="negative values wrap as indices unless assert_nonneg=True (numpy's ValueError then)"),
]

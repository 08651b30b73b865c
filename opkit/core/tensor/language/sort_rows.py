"""The table's sort, search and scan rows: sort, argsort, searchsorted, unique, cumsum, cumprod.

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays stand for the tensor input; axis and
kind are passed as they are. The cases cover every dtype, axis=None (flattened) and negative axes, ties and
NaN (argsort is stable, NaN last), 0-size axes, and Fortran, strided and negative-stride inputs.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.reduction_rows import LAYOUTS, layouts, per_dtype, values
from opkit.core.tensor.language.row import ALL_DTYPES, Row

FAMILY = "sort"
SORTING = "opkit/core/tensor/sorting"
_AXES = ({"axis": -1}, {"axis": 0}, {"axis": None}, {"axis": 1, "kind": "stable"})


def _with_ties_and_nan(rng):
    ties = values(rng, (3, 6), "int16", -3, 3)
    special = values(rng, (2, 7), "float32")
    special[0, [1, 4]] = np.nan
    special[1, [0, 2, 5]] = [np.inf, -np.inf, np.nan]
    rounded = np.round(values(rng, (4, 5), "float32"))  # ties among floats, -0.0 beside 0.0
    return [((ties,), {"axis": 1}), ((special,), {"axis": -1}), ((rounded,), {"axis": 0})]


def _sort_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 5), _AXES) + _with_ties_and_nan(rng)
    cases += layouts(rng, (4, 5), "float64", {"axis": 0}) + layouts(rng, (4, 5), "int32", {"axis": -1})
    cases += [((values(rng, (2, 3, 4), "float32"),), {"axis": 1}), ((values(rng, (0, 3), "float64"),), {"axis": 0}),
              ((values(rng, (3, 0), "int8"),), {"axis": -1}), ((values(rng, (), "float64"),), {"axis": None})]
    return cases


def _scan_examples(rng):
    cases = per_dtype(rng, ALL_DTYPES, (3, 5), ({"axis": None}, {"axis": 0}, {"axis": 1}, {"axis": -1}))
    cases += [((values(rng, (4, 30), "int8", -100, 100),), {"axis": 1}),  # products that wrap int64
              ((values(rng, (4, 6), "uint8", 0, 250),), {"axis": 1})]
    cases += layouts(rng, (4, 5), "float64", {"axis": 0}) + layouts(rng, (4, 5), "int32", {"axis": -1})
    cases += [((values(rng, (2, 3, 4), "float32"),), {"axis": 1}), ((values(rng, (0, 3), "float64"),), {"axis": 0}),
              ((values(rng, (3, 0), "int8"),), {"axis": None}), ((values(rng, (), "int64"),), {"axis": None})]
    return cases


def _np_argsort(a, axis=-1, kind=None):
    return np.argsort(a, axis=axis, kind="stable")


def _searchsorted_examples(rng):
    cases = [((np.sort(values(rng, (7,), d)), values(rng, (2, 3), d)), {"side": ("left", "right")[i % 2]})
             for i, d in enumerate(ALL_DTYPES)]
    special = np.asarray([-np.inf, -1.0, 0.0, 0.0, 2.5, np.inf, np.nan], dtype="float32")
    cases += [((special, np.asarray([np.nan, 0.0, -0.0, np.inf, 3.0], dtype="float32")), {}),
              ((special, np.asarray([np.nan, 0.0, np.inf], dtype="float32")), {"side": "right"})]
    unsorted = values(rng, (6,), "float64")
    cases += [((unsorted, values(rng, (4,), "float64")), {"sorter": np.argsort(unsorted)}),
              ((np.sort(values(rng, (5,), "int32")), np.asarray(3, dtype="int32")), {}),
              ((np.zeros(0, "float64"), values(rng, (3,), "float64")), {}),
              ((np.sort(values(rng, (5,), "int16")), np.zeros((2, 0), "int16")), {})]
    cases += [((np.sort(values(rng, (6,), "float64")), layout(values(rng, (3, 4), "float64"))), {})
              for layout in LAYOUTS]
    return cases


def _np_unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """numpy.unique with PyTensor's inverse indices: a vector (numpy before 2.0)."""
    found = np.unique(ar, return_index, return_inverse, return_counts, axis=axis)
    if not isinstance(found, tuple):
        return found
    found = list(found)
    if return_inverse:
        at = 2 if return_index else 1
        found[at] = found[at].reshape(-1)
    return tuple(np.asarray(f, dtype="int64") if i else f for i, f in enumerate(found))


def _unique_examples(rng):
    flags = ({}, {"return_index": True}, {"return_inverse": True}, {"return_counts": True},
             {"return_index": True, "return_inverse": True, "return_counts": True})
    cases = [((values(rng, (3, 5), d, -3, 3),), dict(flags[i % len(flags)])) for i, d in enumerate(ALL_DTYPES)]
    repeated = values(rng, (4, 3), "int8", -2, 2)
    repeated[2] = repeated[0]
    special = np.asarray([np.nan, 1.0, -0.0, 0.0, np.nan, np.inf, 1.0], dtype="float64")
    cases += [((special,), {"return_counts": True}), ((repeated,), {"axis": 0, "return_inverse": True}),
              ((repeated,), {"axis": -1, "return_index": True, "return_counts": True}),
              ((np.zeros((0, 3), "float32"),), {"return_inverse": True})]
    cases += [((layout(values(rng, (4, 5), "int32", -3, 3)),), {"return_index": True}) for layout in LAYOUTS]
    return cases


_C = "(float16, complex: perform, numpy's)"

ROWS = [
    Row("sort", np.sort, "x's", "the output gradient sent back through the inverse permutation "
        "(argsort of argsort; TakeAlongAxis), PyTensor's", f"{SORTING}/sort_support.c, sort.c {_C}", FAMILY,
        examples=_sort_examples, differentiable=True, notes="NaN last; `kind` is accepted and ignored"),
    Row("argsort", _np_argsort, "int64", "zero (indices do not move with x; PyTensor's)",
        f"{SORTING}/sort_support.c, argsort.c {_C}", FAMILY, examples=_sort_examples,
        notes="always stable (numpy's kind='stable'): equal values keep their order; NaN last"),
    Row("searchsorted", np.searchsorted, "int64", "zero for x and v (PyTensor's); none for the sorter",
        "perform: numpy.searchsorted (PyTensor's C calls the same PyArray_SearchSorted)", FAMILY, nin=2,
        examples=_searchsorted_examples,
        notes="x a sorted vector (or unsorted with `sorter`); the result has v's shape; NaN sorts last"),
    Row("unique", _np_unique, "x's; the index outputs int64", "none (PyTensor's has none)",
        "perform: numpy.unique (as PyTensor's)", FAMILY, examples=_unique_examples,
        notes="the optional outputs come as a list; the inverse indices are a vector (PyTensor's, numpy before 2.0)"),
    Row("cumsum", np.cumsum, "numpy's: bool and small ints int64, small uints uint64, floats their own",
        "the reversed cumsum of the reversed output gradient (PyTensor's)", f"{SORTING}/sort_support.c, "
        f"cumulative.c {_C}", FAMILY, examples=_scan_examples, differentiable=True,
        notes="axis=None runs over the flattened tensor; each lane is summed in order, as numpy's"),
    Row("cumprod", np.cumprod, "numpy's, as cumsum", "cumsum((cumprod(x) * g) reversed) reversed / x (PyTensor's; "
        "undefined where x is 0)", f"{SORTING}/sort_support.c, cumulative.c {_C}", FAMILY,
        examples=_scan_examples, differentiable=True, notes="axis=None runs over the flattened tensor"),
]

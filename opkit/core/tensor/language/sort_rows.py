"""The table's sort and scan rows: sort, argsort, cumsum, cumprod.

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays stand for the tensor input; axis and
kind are passed as they are. The cases cover every dtype, axis=None (flattened) and negative axes, ties and
NaN (argsort is stable, NaN last), 0-size axes, and Fortran, strided and negative-stride inputs.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.reduction_rows import layouts, per_dtype, values
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


_C = "(float16, complex: perform, numpy's)"

ROWS = [
    Row("sort", np.sort, "x's", "the output gradient sent back through the inverse permutation "
        "(argsort of argsort; TakeAlongAxis), PyTensor's", f"{SORTING}/sort_support.c, sort.c {_C}", FAMILY,
        examples=_sort_examples, differentiable=True, notes="NaN last; `kind` is accepted and ignored"),
    Row("argsort", _np_argsort, "int64", "zero (indices do not move with x; PyTensor's)",
        f"{SORTING}/sort_support.c, argsort.c {_C}", FAMILY, examples=_sort_examples,
        notes="always stable (numpy's kind='stable'): equal values keep their order; NaN last"),
    Row("cumsum", np.cumsum, "numpy's: bool and small ints int64, small uints uint64, floats their own",
        "the reversed cumsum of the reversed output gradient (PyTensor's)", f"{SORTING}/sort_support.c, "
        f"cumulative.c {_C}", FAMILY, examples=_scan_examples, differentiable=True,
        notes="axis=None runs over the flattened tensor; each lane is summed in order, as numpy's"),
    Row("cumprod", np.cumprod, "numpy's, as cumsum", "cumsum((cumprod(x) * g) reversed) reversed / x (PyTensor's; "
        "undefined where x is 0)", f"{SORTING}/sort_support.c, cumulative.c {_C}", FAMILY,
        examples=_scan_examples, differentiable=True, notes="axis=None runs over the flattened tensor"),
]

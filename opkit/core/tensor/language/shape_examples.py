"""The examples of the table's shape and creation rows (shape_rows.py): each `_<name>_examples(rng)` returns
(args, kwargs) cases over every dtype, 0-size axes, Fortran, strided and negative-stride inputs and negative axes.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.example_inputs import (_cases, each_dtype, each_layout, fortran, reversed_view, strided,
                                                      values)
from opkit.core.tensor.language.row import ALL_DTYPES


def _reshape_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3, 4)), (4, -1))
    cases += _cases(each_layout(rng, (3, 4)), (2, 6)) + _cases(each_layout(rng, (3, 4)), (-1,))
    cases += [((values(rng, (0, 3), "float64"), (3, 0)), {}), ((values(rng, (0, 3), "int8"), (-1, 2)), {}),
              ((values(rng, (), "int32"), (1, 1)), {}), ((values(rng, (1, 1), "uint16"), ()), {})]
    return cases


def _flatten_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3, 4)), 2) + _cases(each_layout(rng, (2, 3, 4)), 1)
    return cases + [((values(rng, (0, 3, 2), "float32"), 2), {}), ((values(rng, (3, 0), "bool"), 1), {})]


def _transpose_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3, 4)), (2, 0, 1)) + _cases(each_layout(rng, (3, 4)))
    return cases + [((values(rng, (0, 3, 2), "int64"), (-1, 0, 1)), {}), ((values(rng, (), "float64"),), {})]


def _concatenate_examples(rng):
    cases = [(([values(rng, (2, 3), d), values(rng, (1, 3), d)],), {"axis": 0}) for d in ALL_DTYPES]
    cases += [(([values(rng, (2, 3), "float64"), values(rng, (2, 0), "int8"), values(rng, (2, 1), "bool")],),
               {"axis": -1}),
              (([fortran(values(rng, (3, 2), "float32")), reversed_view(values(rng, (3, 4), "float32"))],),
               {"axis": 1}),
              (([strided(values(rng, (0, 4), "uint32")), values(rng, (0, 4), "int16")],), {"axis": 0})]
    return cases


def _stack_examples(rng):
    cases = [(([values(rng, (2, 3), d), values(rng, (2, 3), d)],), {"axis": 1}) for d in ALL_DTYPES]
    return cases + [(([values(rng, (0, 2), "float64"), values(rng, (0, 2), "int32")],), {"axis": -1}),
                    (([reversed_view(values(rng, (3,), "int64")), strided(values(rng, (3,), "int64"))],), {})]


def _alloc_examples(rng):
    cases = [((values(rng, (3,), d), 2, 3), {}) for d in ALL_DTYPES]
    return cases + [((values(rng, (), "float64"), 0, 4), {}), ((strided(values(rng, (1, 3), "int8")), 2, 0, 3), {}),
                    ((reversed_view(values(rng, (2, 1), "float32")), 2, 5), {})]


def _zeros_examples(rng):
    return [(((2, 3),), {"dtype": d}) for d in ALL_DTYPES] + [(((0, 4),), {}), ((3,), {"dtype": "int8"})]


def _like_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3))) + _cases(each_layout(rng, (3, 2)))
    return cases + [((values(rng, (0, 3), "int16"),), {"dtype": "float32"}), ((values(rng, (), "bool"),), {})]


def _arange_examples(rng):
    return [((0, 7, 2), {"dtype": d}) for d in ALL_DTYPES if d != "bool"] + \
        [((5,), {}), ((2.5, -1.0, -0.5), {}), ((3, 3), {"dtype": "int16"}), ((0, 5, 1), {"dtype": "float32"})]


def _specify_shape_examples(rng):
    return [((a, a.shape), {}) for a in each_dtype(rng, (2, 3))] + \
        [((a, (None, a.shape[1])), {}) for a in each_layout(rng, (3, 4))] + \
        [((values(rng, (0, 2), "int8"), (0, 2)), {})]


def _shape_examples(rng):
    return _cases(each_dtype(rng, (2, 0, 3))) + _cases(each_layout(rng, (3, 4))) + \
        [((values(rng, (), "float64"),), {})]


def _squeeze_examples(rng):
    cases = [((a,), {"axis": 1}) for a in each_dtype(rng, (2, 1, 3))]
    cases += [((values(rng, (1, 3, 1), "float64"),), {"axis": (0, -1)}),
              ((values(rng, (0, 1), "int32"),), {"axis": -1}),
              ((fortran(values(rng, (3, 1), "float32")),), {"axis": 1}),
              ((values(rng, (1, 1), "bool"),), {"axis": (0, 1)}),
              ((reversed_view(values(rng, (1, 4), "uint8")),), {"axis": 0})]
    return cases


def _expand_dims_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3)), -1) + _cases(each_layout(rng, (3, 4)), (0, 2))
    return cases + [((values(rng, (0,), "int8"), 0), {}), ((values(rng, (), "float64"), (0, -1)), {})]


def _swapaxes_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3, 4)), 0, -1) + _cases(each_layout(rng, (3, 4)), 1, 0)
    return cases + [((values(rng, (0, 3), "uint64"), -2, 1), {})]


def _moveaxis_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3, 4)), 0, -1) + _cases(each_layout(rng, (2, 3, 4)), (0, 1), (-1, 0))
    return cases + [((values(rng, (0, 3, 1), "float16"), -1, 0), {})]


def _matrix_transpose_examples(rng):
    return _cases(each_dtype(rng, (2, 3, 4))) + _cases(each_layout(rng, (3, 4))) + \
        [((values(rng, (0, 3), "int8"),), {})]


def _ravel_examples(rng):
    return _cases(each_dtype(rng, (2, 3))) + _cases(each_layout(rng, (3, 4))) + \
        [((values(rng, (0, 3), "bool"),), {}), ((values(rng, (), "int16"),), {})]


def _broadcast_to_examples(rng):
    cases = _cases(each_dtype(rng, (3,)), (2, 3)) + _cases(each_layout(rng, (3, 1)), (2, 3, 4))
    return cases + [((values(rng, (1,), "int8"), (0,)), {}), ((values(rng, (), "float64"), (2, 0)), {})]


def _broadcast_arrays_examples(rng):
    cases = [((values(rng, (3,), d), values(rng, (2, 1), d)), {}) for d in ALL_DTYPES]
    return cases + [((values(rng, (0, 1), "float64"), values(rng, (3,), "int8")), {}),
                    ((fortran(values(rng, (3, 4), "float32")), reversed_view(values(rng, (3, 1), "float32")),
                      values(rng, (), "float32")), {})]


def _broadcast_shape_examples(rng):
    return [((values(rng, (3,), "float64"), values(rng, (2, 1), "int8")), {}),
            ((values(rng, (0, 1), "float32"), values(rng, (1, 4), "bool"), values(rng, (), "int64")), {})]


def _roll_examples(rng):
    cases = _cases(each_dtype(rng, (3, 4)), 1, -1) + _cases(each_layout(rng, (3, 4)), -5)
    return cases + [((values(rng, (3, 4), "int32"), (1, 2), (0, 1)), {}), ((values(rng, (0, 3), "float64"), 2, 0), {}),
                    ((values(rng, (5,), "uint8"), 12), {}), ((values(rng, (2, 3), "float32"),), {"shift": 7})]


def _tile_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3)), (2, 2)) + _cases(each_layout(rng, (2, 3)), 3)
    return cases + [((values(rng, (3,), "int8"), (2, 1, 2)), {}), ((values(rng, (2, 3, 2), "float64"), (2, 1)), {}),
                    ((values(rng, (2, 0), "float32"), 2), {}), ((values(rng, (2, 3), "int64"), (0, 1)), {})]


def _diag_examples(rng):
    cases = _cases(each_dtype(rng, (3,)), 1) + _cases(each_dtype(rng, (3, 4), dtypes=("float64", "int8", "bool")), -1)
    cases += _cases(each_layout(rng, (4, 3)), 2) + _cases(each_layout(rng, (3,)), -2)
    return cases + [((values(rng, (0,), "int16"),), {}), ((values(rng, (0, 3), "float32"), 1), {}),
                    ((values(rng, (3, 3), "uint32"), 5), {})]


def _diagonal_examples(rng):
    cases = _cases(each_dtype(rng, (3, 4)), 1) + _cases(each_layout(rng, (2, 3, 4)), -1, 2, 0)
    return cases + [((values(rng, (3, 0), "int8"),), {}), ((values(rng, (2, 3, 4), "float32"), 0, -1, -2), {}),
                    ((values(rng, (3, 4), "float64"), -7), {})]


def _trace_examples(rng):
    return _cases(each_dtype(rng, (3, 4), dtypes=[d for d in ALL_DTYPES if d != "float16"])) + \
        _cases(each_layout(rng, (3, 4)), 1) + [((values(rng, (0, 2), "int32"),), {})]


def _eye_examples(rng):
    return [((3, 4, 1), {"dtype": d}) for d in ALL_DTYPES] + \
        [((3,), {}), ((2, 5, -1), {"dtype": "int8"}), ((0, 3), {}), ((3, 2, 7), {}), ((4, None, -2), {"dtype": "bool"})]


def _identity_like_examples(rng):
    return _cases(each_dtype(rng, (3, 4))) + _cases(each_layout(rng, (2, 3))) + \
        [((values(rng, (0, 2), "int8"),), {"dtype": "float32"})]


def _fill_diagonal_examples(rng):
    cases = _cases(each_dtype(rng, (3, 4)), 3) + _cases(each_layout(rng, (4, 3)), -2.5)
    return cases + [((values(rng, (3, 3, 3), "int16"), 7), {}), ((values(rng, (0, 3), "float64"), 1), {}),
                    ((values(rng, (5, 2), "float32"), values(rng, (), "float32")), {})]


def _tri_examples(rng):
    return [((3, 4, 1), {"dtype": d}) for d in ALL_DTYPES] + [((3,), {}), ((4, 2, -1), {}), ((0, 3), {}),
                                                               ((3, 3, 9), {"dtype": "int8"})]


def _triangle_examples(rng):
    cases = [((values(rng, (3, 4), "float64"), 0), {})]  # finite: the gradient's case
    cases += _cases(each_dtype(rng, (3, 4), special=True), -1) + _cases(each_layout(rng, (2, 3, 4), special=True), 1)
    return cases + [((values(rng, (4,), "int8"),), {}), ((values(rng, (0, 3), "float64"), 2), {}),
                    ((values(rng, (3, 3), "uint16"), 5), {})]


def _repeat_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3)), 2) + _cases(each_layout(rng, (3, 2)), np.asarray([1, 0, 2]), 0)
    return cases + [((values(rng, (2, 3), "int8"), np.asarray([2]), -1), {}),
                    ((values(rng, (0, 3), "float32"), 3, 0), {}),
                    ((values(rng, (2, 3), "float64"), 0), {"axis": 1}), ((values(rng, (), "int64"), 3), {}),
                    ((values(rng, (3,), "uint8"), np.asarray([3, 0, 1], dtype="int8")), {})]


def _take_examples(rng):
    cases = _cases(each_dtype(rng, (3, 4)), np.asarray([0, -1, 2]), 1)
    cases += _cases(each_layout(rng, (3, 4)), np.asarray([[5], [-9]]))
    return cases + [((values(rng, (3, 4), "int16"), np.asarray([7, -8]), 0), {"mode": "wrap"}),
                    ((values(rng, (3, 4), "float32"), np.asarray([9, -3]), -1), {"mode": "clip"}),
                    ((values(rng, (0, 4), "float64"), np.zeros(0, "int64"), 0), {}),
                    ((values(rng, (3, 4), "uint8"), np.asarray(2, dtype="int8"), 0), {})]


def _full_examples(rng):
    return [(((2, 3), values(rng, (), d)), {}) for d in ALL_DTYPES] + \
        [(((2, 3), 7), {"dtype": "int8"}), (((0, 2), 1.5), {}), ((3, values(rng, (3,), "float32")), {}),
         (((2, 3), 2.7), {"dtype": "int32"})]


def _full_like_examples(rng):
    cases = _cases(each_dtype(rng, (2, 3)), 3) + _cases(each_layout(rng, (3, 2)), 2.5)
    return cases + [((values(rng, (2, 3), "int8"), 2.7), {}),
                    ((values(rng, (0, 3), "float64"), 1), {"dtype": "uint16"})]


def _empty_examples(rng):
    return [(((2, 3),), {"dtype": d}) for d in ALL_DTYPES] + [(((0, 4),), {}), ((3,), {})]


def _linspace_examples(rng):
    return [((0, 1, 5), {}), ((2, -3.5, 7), {"endpoint": False}), ((0, 10, 6), {"dtype": "int32"}),
            ((1.0, 1.0, 1), {}), ((0, 1, 0), {}), ((values(rng, (3,), "float32"), values(rng, (3,), "float32"), 4), {}),
            ((values(rng, (2,), "float64"), 5.0, 3), {"axis": -1}), ((values(rng, (2,), "int8"), 9, 4), {})]


def _isclose_examples(rng):
    cases = []
    for d in ALL_DTYPES:
        a = values(rng, (6,), d, special=True)
        b = a.copy()
        if a.dtype.kind == "f":
            b[3:] = b[3:] * (1 + 1e-6) + np.asarray(1e-9, dtype=d)
        cases.append(((a, b), {}))
    special = np.asarray([np.nan, np.inf, -np.inf, 1.0, 0.0, 1e-9])
    cases += [((special, special[::-1].copy()[::-1]), {"equal_nan": True}), ((special, np.flip(special)), {}),
              ((values(rng, (2, 3), "float32"), values(rng, (3,), "float32")), {"rtol": 0.5, "atol": 1.0}),
              ((values(rng, (0, 3), "float64"), values(rng, (3,), "int8")), {}),
              ((fortran(values(rng, (3, 2), "int64")), values(rng, (3, 2), "uint8")), {"atol": 10})]
    return cases


def _allclose_examples(rng):
    return _isclose_examples(rng)


def _atleast_examples(rng):
    return _cases(each_dtype(rng, (3,))) + [((values(rng, (), "int8"),), {}), ((values(rng, (0, 2), "float32"),), {}),
                                            ((reversed_view(values(rng, (2, 3), "float64")),), {}),
                                            ((fortran(values(rng, (2, 3, 2), "uint16")),), {})]


def _atleast_nd_examples(rng):
    return [((values(rng, (3,), d),), {"n": 3, "left": left}) for d in ("int8", "float64", "bool")
            for left in (True, False)] + [((values(rng, (0, 2), "float32"),), {"n": 4}),
                                          ((strided(values(rng, (2, 3), "int64")),), {"n": 1})]


def _split_examples(rng):
    cases = _cases(each_dtype(rng, (5, 2)), [2, 0, 3])
    return cases + [((fortran(values(rng, (2, 5), "float64")), [1, 4]), {"axis": -1}),
                    ((values(rng, (0, 3), "int8"), [0, 0]), {}),
                    ((reversed_view(values(rng, (4,), "float32")), np.asarray([3, 1])), {"n_splits": 2})]


def _hstack_examples(rng):
    cases = [((values(rng, (2, 3), d), values(rng, (2, 1), d)), {}) for d in ALL_DTYPES]
    return cases + [((fortran(values(rng, (2, 2), "float64")), values(rng, (2, 0), "int8"),
                      strided(values(rng, (2, 3), "float32"))), {})]


def _vstack_examples(rng):
    cases = [((values(rng, (2, 3), d), values(rng, (1, 3), d)), {}) for d in ALL_DTYPES]
    return cases + [((reversed_view(values(rng, (2, 2), "float64")), values(rng, (0, 2), "int8")), {})]


def _nonzero_examples(rng):
    cases = _cases(each_dtype(rng, (3, 4), special=True))
    return cases + [((values(rng, (2, 3, 2), "int8"),), {"return_matrix": True}),
                    ((values(rng, (0, 3), "float64"),), {}), ((fortran(values(rng, (3, 2), "bool")),), {}),
                    ((reversed_view(values(rng, (5,), "uint8")),), {})]


def _flat_nonzero_examples(rng):
    return _cases(each_dtype(rng, (3, 4), special=True)) + \
        [((values(rng, (0,), "float64"),), {}), ((strided(values(rng, (2, 3), "int16")),), {}),
         ((values(rng, (), "float32"),), {})]


def _tri_indices_examples(rng):
    return [((3,), {}), ((4, 1), {}), ((3, -1, 5), {}), ((0,), {}), ((2, 5, 3), {})]


def _tri_indices_from_examples(rng):
    return [((values(rng, (3, 4), d), k), {}) for d, k in (("float64", 0), ("int8", -1), ("bool", 2))] + \
        [((values(rng, (0, 2), "float32"),), {})]


def _fill_diagonal_offset_examples(rng):
    cases = [((values(rng, (3, 4), d), values(rng, (), d), k), {}) for d, k in zip(ALL_DTYPES, range(-3, 9))]
    return cases + [((fortran(values(rng, (4, 3), "float64")), 2.5, -1), {}), ((values(rng, (0, 3), "int8"), 1, 0), {})]


def _logspace_examples(rng):
    return [((0, 2, 5), {}), ((1, 2, 4), {"base": 2.0, "endpoint": False}), ((0, 1, 3), {"dtype": "float32"}),
            ((values(rng, (2,), "float64"), 1.0, 3), {"axis": -1}), ((2, 3, 0), {})]


def _bartlett_examples(rng):
    return [((m,), {}) for m in (-2, 0, 1, 2, 5, 8)]


def _compress_examples(rng):
    cases = [((np.asarray([True, False, True]), values(rng, (2, 3), d)), {"axis": 1}) for d in ALL_DTYPES]
    return cases + [((values(rng, (4,), "int8"), fortran(values(rng, (4, 2), "float64"))), {"axis": 0}),
                    ((np.asarray([0, 1]), reversed_view(values(rng, (3, 2), "float32"))), {}),
                    ((np.zeros(0, bool), values(rng, (0, 3), "int16")), {"axis": -2})]


def _stacklists_examples(rng):
    cases = [(([values(rng, (2,), d), values(rng, (2,), d), values(rng, (2,), d)],), {}) for d in ALL_DTYPES]
    return cases + [(([strided(values(rng, (0, 3), "float64")), values(rng, (0, 3), "float64")],), {}),
                    (([[values(rng, (), "int32"), values(rng, (), "int32")], [values(rng, (), "int32")] * 2],), {})]


def _unravel_index_examples(rng):
    cases = [((rng.integers(0, 12, size=(2, 3)).astype(d), (3, 4)), {}) for d in ("int8", "uint16", "int32", "int64")]
    return cases + [((np.asarray([0, 5, 11]), (4, 3)), {"order": "F"}), ((np.zeros(0, "int64"), (2, 0, 3)), {}),
                    ((reversed_view(np.arange(6)), (6,)), {}), ((np.asarray(7, dtype="int16"), (2, 2, 2)), {})]


def _ravel_multi_index_examples(rng):
    rows, columns = rng.integers(0, 3, size=4), rng.integers(0, 4, size=4)
    return [(((rows.astype(d), columns.astype(d)), (3, 4)), {}) for d in ("int8", "uint8", "int64")] + \
        [(((rows, columns + 5), (3, 4)), {"mode": "wrap"}), (((rows + 7, columns), (3, 4)), {"mode": "clip"}),
         (((rows, columns), (3, 4)), {"order": "F"}), (((np.zeros(0, "int64"), np.zeros(0, "int64")), (3, 4)), {}),
         (((np.asarray(2), strided(columns)), (5, 4)), {})]


def _choose_examples(rng):
    a = rng.integers(0, 3, size=(2, 3))
    cases = [((a, values(rng, (3, 2, 3), d)), {}) for d in ALL_DTYPES]
    return cases + [((a, [values(rng, (3,), "float32"), values(rng, (2, 1), "float64"), values(rng, (), "int8")]), {}),
                    ((a + 4, fortran(values(rng, (3, 2, 3), "int64"))), {"mode": "wrap"}),
                    ((a - 2, reversed_view(values(rng, (3, 1, 3), "float64"))), {"mode": "clip"}),
                    ((np.zeros((0, 3), "int8"), values(rng, (2, 3), "uint8")), {})]


def _diff_examples(rng):
    cases = [((a,), {"n": (1, 2, 0)[i % 3], "axis": (-1, 0)[i % 2]}) for i, a in enumerate(each_dtype(rng, (3, 5)))]
    cases += _cases(each_layout(rng, (4, 5)), 1, 0) + _cases(each_layout(rng, (4, 5), "int32"), 2, -1)
    return cases + [((values(rng, (6,), "float64"), 3), {}), ((values(rng, (0, 3), "float32"),), {"axis": 0}),
                    ((values(rng, (2, 3, 4), "uint8"),), {"axis": 1}), ((values(rng, (2,), "int16"), 4), {})]


def _concat_with_broadcast_examples(rng):
    cases = [(([values(rng, (2, 3), d), values(rng, (1, 1), d)],), {"axis": 0}) for d in ALL_DTYPES]
    return cases + [(([values(rng, (2, 1, 4), "float64"), values(rng, (1, 3, 1), "float64")],), {"axis": -1}),
                    (([fortran(values(rng, (3, 2), "float32")), values(rng, (1, 4), "float32")],), {"axis": 1}),
                    (([values(rng, (2, 3), "int8"), values(rng, (1, 3), "float64"), values(rng, (1, 1), "bool")],),
                     {"axis": 0}),
                    (([reversed_view(values(rng, (0, 3), "int64")), strided(values(rng, (2, 3), "int64"))],), {})]


def _identity_examples(rng):
    return _cases(each_dtype(rng, (2, 3))) + _cases(each_layout(rng, (3, 4))) + \
        [((values(rng, (0, 2), "int8"),), {}), ((values(rng, (), "float64"),), {})]


def _extract_diag_examples(rng):
    return _cases(each_dtype(rng, (3, 4))) + _cases(each_layout(rng, (2, 3, 4))) + \
        [((values(rng, (3, 0), "int8"),), {}), ((values(rng, (5, 2), "float32"),), {})]


def _geomspace_examples(rng):
    positive = np.abs(values(rng, (3,), "float32")) + np.float32(0.5)
    return [((1, 1000, 4), {}), ((-1, -1000, 5), {"endpoint": False}), ((2, 50, 5), {"dtype": "int32"}),
            ((1.0, 8.0, 4), {"base": 2.0}), ((3, 3, 1), {}), ((1, 2, 0), {}),
            ((positive, positive * 10, 4), {}), ((positive.astype("float64"), 5.0, 3), {"axis": -1}),
            ((np.asarray([1, 2], dtype="int8"), 9, 4), {}), ((0.5, 7, 6), {"dtype": "float32"})]

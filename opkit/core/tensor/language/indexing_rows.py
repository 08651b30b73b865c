"""The table's indexing rows: take_along_axis, advanced (integer-array and boolean-mask) indexing and its writes,
permute_row_elements and inverse_permutation, and the derivatives jacobian and hessian.

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays stand for tensor inputs (an index array keeps
its integer dtype, a bool array is a mask); slices, None, Ellipsis and ints are passed as they are. The cases cover
the data dtypes, every integer index dtype, negative and repeated indices, 0-size axes, and Fortran, strided and
negative-stride inputs. A set's first float64 cases write each index once: where one repeats, numpy keeps the last
write and PyTensor's gradient (ours) counts every write, so finite differences would disagree there.

x[idx], x[mask] and their writes (set_subtensor(x[idx], y)) build the same ops as the functions of these rows.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.row import ALL_DTYPES, Row
from opkit.core.tensor.language.example_inputs import LAYOUTS, values

FAMILY = "indexing"
SHAPES = "opkit/core/tensor/shapes"
INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
DATA_DTYPES = ("float64", "float32", "int8", "uint16", "int64", "bool", "complex128")
SAME = "x's dtype"
GET_GRAD = "the output gradient added into zeros shaped like x at the index (repeated indices accumulate)"
WRITE_GRAD = ("x: the output gradient (a set writes zeros at the index); y: the output gradient at the index, "
              "summed over the axes y was broadcast along")
C_GET1 = f"{SHAPES}/advanced_subtensor.c (opkit_index_array.h reads the index)"
C_INC1 = f"{SHAPES}/advanced_inc_subtensor.c (opkit_index_array.h reads the index)"
PERFORM_GET = "perform: numpy's x[index]"


# -- references ----------------------------------------------------------------------------------------------------

def getitem(x, *index):
    """numpy's x[index]."""
    return x[index]


def setitem(x, y, *index):
    """A copy of x after numpy's ``r[index] = y`` (a repeated index: the last write wins)."""
    result = x.copy()
    result[index] = y
    return result


def add_at(x, y, *index):
    """A copy of x after numpy.add.at(r, index, y) (a repeated index accumulates)."""
    result = x.copy()
    np.add.at(result, index, y)
    return result


# -- examples ------------------------------------------------------------------------------------------------------

def _index(values_, dtype):
    """An index array of `dtype` (a negative index has a signed dtype)."""
    values_ = np.asarray(values_)
    if np.dtype(dtype).kind == "u" and (values_ < 0).any():
        dtype = dtype.replace("uint", "int")
    return values_.astype(dtype)


def _dtype_cycle(k):
    return INDEX_DTYPES[k % len(INDEX_DTYPES)]


def _take_along_axis_examples(rng):
    cases = [((values(rng, (3, 4), "float64"), _index([[0, 2, 1, 0]], "int64")), {"axis": 0}),
             ((values(rng, (3, 4), "float64"), _index([[3], [0], [-1]], "int16")), {"axis": 1})]
    for k, dtype in enumerate(DATA_DTYPES):
        cases.append(((values(rng, (2, 3, 4), dtype), _index(rng.integers(-3, 3, size=(2, 2, 4)), _signed(k))),
                      {"axis": 1}))
    for k, layout in enumerate(LAYOUTS):
        cases.append(((layout(values(rng, (4, 3), "float32")), _index([[1, 0, 3]], _dtype_cycle(k))), {"axis": 0}))
    return cases + [((values(rng, (3, 4), "int32"), _index([5, 0, 11, -1], "uint32")), {"axis": None}),
                    ((values(rng, (0, 3), "float64"), np.zeros((0, 2), "int64")), {"axis": -1}),
                    ((values(rng, (3, 4), "uint8"), _index([[2, 2, 0, 1]], "int64")), {"axis": -2})]


def _signed(k):
    return ("int8", "int16", "int32", "int64")[k % 4]


def _subtensor1_examples(rng):
    cases = [((values(rng, (4, 3), "float64"), _index([3, 0, -1, 2], "int64")), {}),
             ((values(rng, (5,), "float64"), _index([1, 1, 4], "int32")), {})]
    for k, dtype in enumerate(INDEX_DTYPES):
        cases.append(((values(rng, (4, 2), DATA_DTYPES[k % len(DATA_DTYPES)]), _index([3, 0, 3, 1], dtype)), {}))
    for k, layout in enumerate(LAYOUTS):
        cases.append(((layout(values(rng, (4, 3), "int16")), _index([2, -4, 0], _signed(k))), {}))
    return cases + [((values(rng, (4, 3), "float32"), np.zeros(0, "int64")), {}),
                    ((values(rng, (0, 3), "float64"), np.zeros(0, "uint8")), {}),
                    ((values(rng, (3, 2, 2), "complex128"), _index([2, 0], "uint64")), {})]


def _subtensor_examples(rng):
    x = values(rng, (4, 5), "float64")
    cases = [((x, _index([0, 3, -1], "int64"), slice(1, None)), {}),
             ((x, slice(None, None, -2), _index([[4], [0]], "int32")), {}),
             ((x, _index([0, 2], "int8"), _index([1, -1], "uint16")), {}),
             ((x, x > 0), {}),
             ((x, None, _index([3, 1], "int64")), {}),
             ((values(rng, (2, 3, 4), "float64"), _index([1, 0], "int16"), slice(None), _index([3, 3], "int64")), {}),
             ((values(rng, (2, 3, 4), "int32"), Ellipsis, _index([0, -1], "uint8")), {}),
             ((values(rng, (2, 3, 4), "float32"), 1, slice(None), _index([[0, 1, 2]], "int64")), {}),
             ((values(rng, (3, 4), "bool"), values(rng, (3,), "bool")), {}),
             ((values(rng, (3, 4), "uint64"), slice(1, None), values(rng, (4,), "bool")), {}),
             ((values(rng, (3, 4), "complex128"), values(rng, (3, 4), "bool")), {}),
             ((values(rng, (0, 4), "float64"), np.zeros(0, "int64"), _index([1], "int64")), {})]
    for k, layout in enumerate(LAYOUTS):
        cases.append(((layout(values(rng, (3, 4), "int8")), _index([2, 0], _dtype_cycle(k + 3)),
                       _index([[1], [3]], "int64")), {}))
    return cases


def _write_examples(rng, unique_first):
    """Cases of (x, y, *index): y has x's dtype (an increment refuses a y numpy would not cast back)."""
    x = values(rng, (4, 5), "float64")
    first = _index([0, 3, 1], "int64") if unique_first else _index([0, 3, 0], "int64")
    cases = [((x, values(rng, (3, 4), "float64"), first, slice(1, None)), {}),
             ((x, values(rng, (), "float64"), x > 0.5), {}),
             ((x, values(rng, (2,), "float64"), _index([2, 0], "int8"), _index([1, -1], "uint16")), {}),
             ((x, values(rng, (1,), "float64"), _index([1, 1, 1], "int32"), slice(None)), {}),
             ((x, values(rng, (4, 1), "float64"), slice(None), _index([4, 4, 0], "uint64")), {}),
             ((values(rng, (2, 3, 4), "float32"), values(rng, (2, 3), "float32"), _index([1, 0], "int16"),
               slice(None), _index([3, 3], "int64")), {}),
             ((values(rng, (3, 4), "int16"), values(rng, (), "int16"), values(rng, (3, 4), "bool")), {}),
             ((values(rng, (3, 4), "complex128"), values(rng, (4,), "complex128"), Ellipsis,
               _index([2, 2, 0, 1], "uint8")), {}),
             ((values(rng, (0, 3), "float64"), values(rng, (3,), "float64"), np.zeros(0, "int64")), {})]
    for k, layout in enumerate(LAYOUTS):
        cases.append(((layout(values(rng, (3, 4), "int32")), values(rng, (2,), "int32"),
                       _index([0, 2], _dtype_cycle(k)), _index([1, -1], "int64")), {}))
    return cases


def _write1_examples(rng, unique_first):
    first = _index([3, 0, 1], "int64") if unique_first else _index([3, 0, 3], "int64")
    cases = [((values(rng, (4, 3), "float64"), values(rng, (3, 3), "float64"), first), {}),
             ((values(rng, (4, 3), "float64"), values(rng, (3,), "float64"), _index([2, -1], "int32")), {})]
    for k, dtype in enumerate(INDEX_DTYPES):
        data = DATA_DTYPES[k % len(DATA_DTYPES)]
        cases.append(((values(rng, (4, 2), data), values(rng, (2,), data), _index([3, 0, 3, 1], dtype)), {}))
    for k, layout in enumerate(LAYOUTS):
        cases.append(((layout(values(rng, (4, 3), "float32")), values(rng, (1, 3), "float32"),
                       _index([2, -4, 2], _signed(k))), {}))
    return cases + [((values(rng, (4, 3), "float64"), values(rng, (3,), "float64"), np.zeros(0, "int64")), {}),
                    ((values(rng, (0, 2), "int64"), values(rng, (), "int64"), np.zeros(0, "uint32")), {})]


def _set_examples(rng):
    return _write_examples(rng, unique_first=True)


def _inc_examples(rng):
    return _write_examples(rng, unique_first=False)


def _set1_examples(rng):
    return _write1_examples(rng, unique_first=True)


def _inc1_examples(rng):
    return _write1_examples(rng, unique_first=False)


def _permutations(rng, rows, length, dtype="int64"):
    return np.asarray([rng.permutation(length) for _ in range(rows)], dtype=dtype)


def _np_permute_row_elements(x, y, inverse=False):
    """PyTensor's permute_row_elements: each row (last axis) of x permuted by y's matching row, leading axes
    broadcast after padding the smaller operand on the left."""
    ndim = max(x.ndim, y.ndim)
    x, y = x.reshape((1,) * (ndim - x.ndim) + x.shape), y.reshape((1,) * (ndim - y.ndim) + y.shape)
    lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    x, y = np.broadcast_to(x, lead + x.shape[-1:]), np.broadcast_to(y, lead + y.shape[-1:])
    return np.take_along_axis(x, np.argsort(y, axis=-1) if inverse else y, axis=-1)


def _permute_examples(rng):
    cases = [((values(rng, (3, 4), d), _permutations(rng, 3, 4, index)), {"inverse": i % 2 == 1})
             for i, (d, index) in enumerate(zip(DATA_DTYPES, INDEX_DTYPES))]
    cases += [((values(rng, (3, 4), "float64"), _permutations(rng, 1, 4)[0]), {}),
              ((values(rng, (4,), "float64"), _permutations(rng, 3, 4)), {"inverse": True}),
              ((values(rng, (2, 1, 4), "float32"), _permutations(rng, 3, 4, "int32")), {}),
              ((values(rng, (0, 4), "float64"), _permutations(rng, 1, 4)), {})]
    cases += [((layout(values(rng, (3, 5), "float64")), _permutations(rng, 3, 5)), {"inverse": True})
              for layout in LAYOUTS]
    return cases


def _np_inverse_permutation(perm):
    return np.argsort(perm, axis=-1).astype(perm.dtype)


def _inverse_permutation_examples(rng):
    cases = [((_permutations(rng, 2, 5, d),), {}) for d in INDEX_DTYPES]
    cases += [((_permutations(rng, 1, 6)[0],), {}), ((np.zeros(0, "int64"),), {}),
              ((np.stack([_permutations(rng, 3, 4, "int32")] * 2),), {})]
    return cases + [((layout(_permutations(rng, 3, 5)),), {}) for layout in LAYOUTS]


def _jacobian_reference(*args, **kwargs):
    raise NotImplementedError("jacobian and hessian take expressions: tests/tensor/test_language_indexing.py")


ROWS = [
    Row("take_along_axis", np.take_along_axis, SAME, GET_GRAD,
        "perform: numpy's indexing (an AdvancedSubtensor of the indices and aranges)", FAMILY, nin=2,
        dtypes=ALL_DTYPES, examples=_take_along_axis_examples, differentiable=True,
        notes="numpy's: indices has arr's ndim and broadcasts against it; axis=None indexes arr flattened"),
    Row("advanced_subtensor1", getitem, SAME, GET_GRAD, C_GET1, FAMILY, nin=2, dtypes=ALL_DTYPES,
        examples=_subtensor1_examples, differentiable=True,
        notes="x[idx] for an integer vector idx on axis 0; every integer index dtype, negative indices wrap, one "
              "out of range raises numpy's IndexError naming it (a uint64 of 2**63 or more is out of range)"),
    Row("advanced_subtensor", getitem, SAME, GET_GRAD, PERFORM_GET, FAMILY, nin=2, dtypes=ALL_DTYPES,
        examples=_subtensor_examples, differentiable=True,
        notes="x[index] with integer arrays (broadcast together; their dimensions where the arrays are adjacent, "
              "first where a slice separates them), boolean masks (their nonzero), slices, ints, None and ..."),
    Row("advanced_set_subtensor", setitem, SAME, WRITE_GRAD, "perform: numpy's r[index] = y", FAMILY, nin=3,
        dtypes=ALL_DTYPES, examples=_set_examples, differentiable=True,
        notes="x with x[index] = y (masks included); where an index repeats, the last write wins"),
    Row("advanced_inc_subtensor", add_at, SAME, WRITE_GRAD, "perform: numpy.add.at", FAMILY, nin=3,
        dtypes=ALL_DTYPES, examples=_inc_examples, differentiable=True,
        notes="x with y added at x[index] (masks included), repeated indices accumulating as numpy.add.at; "
              "ignore_duplicates=True: numpy's buffered r[index] += y"),
    Row("advanced_set_subtensor1", setitem, SAME, WRITE_GRAD, C_INC1, FAMILY, nin=3, dtypes=ALL_DTYPES,
        examples=_set1_examples, differentiable=True,
        notes="x with x[idx] = y, idx an integer vector on axis 0 (the last write of a repeated index wins)"),
    Row("advanced_inc_subtensor1", add_at, SAME, WRITE_GRAD, C_INC1, FAMILY, nin=3, dtypes=ALL_DTYPES,
        examples=_inc1_examples, differentiable=True,
        notes="x with y added at x[idx], idx an integer vector on axis 0 (numpy.add.at: repeats accumulate)"),
    Row("jacobian", _jacobian_reference, "the expression's dtype (a float)", "second derivatives through grad",
        "no op of its own: one grad per element of a static-size expression, stacked (else a JacobianRows "
        "node, an inner function per row)", "gradient", nin=2, dtypes=("float32", "float64"),
        notes="jacobian(expression, wrt): the expression's shape followed by wrt's; takes expressions, not arrays "
              "(tests/tensor/test_language_indexing.py checks it against numpy)"),
    Row("hessian", _jacobian_reference, "the cost's dtype (a float)", "third derivatives through grad",
        "no op of its own: the jacobian of grad(cost, wrt)", "gradient", nin=2, dtypes=("float32", "float64"),
        notes="hessian(cost, wrt): a 0-d cost, vectors wrt; takes expressions, not arrays "
              "(tests/tensor/test_language_indexing.py checks it against numpy)"),
    Row("permute_row_elements", _np_permute_row_elements, SAME,
        "x: the output gradient permuted back (take_along_axis' gradient); y: none (integers)",
        f"{SHAPES}/take_along_axis.py (advanced indexing's C); the inverse takes argsort of y (its C)", FAMILY,
        nin=2, examples=_permute_examples, differentiable=True,
        notes="PyTensor's: y's last axis holds permutations; inverse=True applies their inverses"),
    Row("inverse_permutation", _np_inverse_permutation, "perm's dtype", "none (integers)",
        "opkit/core/tensor/sorting/sort_support.c, argsort.c (argsort of perm)", FAMILY,
        examples=_inverse_permutation_examples, notes="each permutation along the last axis inverted"),
]

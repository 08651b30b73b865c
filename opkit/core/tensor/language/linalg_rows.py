"""The table's rows of numpy.linalg's functions (PyTensor's pytensor.tensor.linalg, Theano's theano.tensor.nlinalg):
matrix_inverse, det, solve, cholesky, eigh and svd run numpy.linalg in perform ops; norm is a graph."""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.elementwise import elemwise_math, logic
from opkit.core.tensor.language.example_inputs import LAYOUTS
from opkit.core.tensor.language.reduction_rows import values
from opkit.core.tensor.language.row import Row
from opkit.core.tensor.reductions import reduction
from opkit.core.tensor.shapes.alloc import cast
from opkit.core.tensor.shapes.take_along_axis import take_along_axis


# -- linalg: numpy.linalg in perform ops ------------------------------------------------------------------------------

_LINALG_DTYPES = ("int32", "float32", "float64")  # numpy.linalg refuses float16; ints give float64


def _well_conditioned(rng, n, dtype):
    a = values(rng, (n, n), "float64") + 4 * n * np.eye(n)
    return np.round(a).astype(dtype) if np.dtype(dtype).kind in "iu" else a.astype(dtype)


def _spd(rng, n, dtype):
    r = values(rng, (n, n), "float64")
    a = r @ r.T + n * np.eye(n)
    return np.round(a).astype(dtype) if np.dtype(dtype).kind in "iu" else a.astype(dtype)


def _square_examples(rng):
    cases = [((_well_conditioned(rng, 3, "float64"),), {}), ((_well_conditioned(rng, 4, "float64"),), {})]
    cases += [((_well_conditioned(rng, 3, d),), {}) for d in _LINALG_DTYPES]
    cases += [((layout(_well_conditioned(rng, 3, "float64")),), {}) for layout in LAYOUTS]
    return cases


def _spd_examples(rng):
    cases = [((_spd(rng, 3, d),), {}) for d in _LINALG_DTYPES] + [((_spd(rng, 1, "float64"),), {})]
    cases += [((layout(_spd(rng, 4, "float64")),), {}) for layout in LAYOUTS]
    return cases


def _solve_examples(rng):
    cases = [((_well_conditioned(rng, 3, "float64"), values(rng, (3, 2), "float64")), {}),
             ((_well_conditioned(rng, 3, "float64"), values(rng, (3,), "float64")), {}),
             ((_well_conditioned(rng, 3, "float32"), values(rng, (3,), "float32")), {}),
             ((_well_conditioned(rng, 2, "int32"), values(rng, (2, 3), "int64")), {}),
             ((_well_conditioned(rng, 2, "float32"), values(rng, (2,), "float64")), {})]
    cases += [((layout(_well_conditioned(rng, 3, "float64")), values(rng, (3, 2), "float64")), {})
              for layout in LAYOUTS]
    return cases


def _np_eigh(a, UPLO="L"):
    """numpy.linalg.eigh with each eigenvector's sign fixed (its largest entry positive): LAPACK may flip it."""
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return [w, _signs_fixed(v)]


def _signs_fixed(v, axis=0):
    v = np.asarray(v)
    at = np.argmax(np.abs(v), axis=axis)
    picked = np.take_along_axis(v, np.expand_dims(at, axis), axis=axis)
    return v * np.where(picked < 0, -1, 1).astype(v.dtype)


def _apply_eigh(eigh, x, **kwargs):
    w, v = eigh(x, **kwargs)
    return [w, _signs_fixed_graph(v, 0)]


def _signs_fixed_graph(v, axis):
    at = reduction.argmax(elemwise_math.abs(v), axis=axis, keepdims=True)
    picked = take_along_axis(v, at, axis=axis)
    return v * cast(logic.switch(logic.lt(picked, 0), -1, 1), v.dtype)


def _np_svd(a, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=False)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    k = len(s)
    return [_signs_fixed(u[:, :k]), s]  # the singular vectors of nonzero singular values, signs fixed


def _apply_svd(svd, x, full_matrices=True, compute_uv=True):
    if not compute_uv:
        return svd(x, full_matrices=full_matrices, compute_uv=False)
    u, s, vh = svd(x, full_matrices=full_matrices)
    return [_signs_fixed_graph(u[:, :s.shape[0]], 0), s]


def _svd_examples(rng):
    cases = [((values(rng, (3, 2), d),), {"full_matrices": i % 2 == 0}) for i, d in enumerate(_LINALG_DTYPES)]
    cases += [((values(rng, (2, 4), "float64"),), {"compute_uv": False}),
              ((values(rng, (4, 4), "float32"),), {"full_matrices": False})]
    cases += [((layout(values(rng, (3, 3), "float64")),), {}) for layout in LAYOUTS]
    return cases


def _np_norm(x, ord=None, axis=None, keepdims=False):
    found = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    return np.asarray(found, dtype=x.dtype if x.dtype in (np.float32, np.float64) else np.float64)


def _norm_examples(rng):
    cases = [((values(rng, (3, 4), "float64"),), {}), ((values(rng, (5,), "float64"),), {"ord": 3}),
             ((values(rng, (3, 4), "float64"),), {"ord": 1}), ((values(rng, (3, 4), "float64"),), {"ord": -np.inf}),
             ((values(rng, (3, 4), "float64"),), {"ord": "nuc"}), ((values(rng, (3, 4), "float64"),), {"ord": 2}),
             ((values(rng, (3, 4), "float64"),), {"ord": "fro", "keepdims": True}),
             ((values(rng, (2, 3, 4), "float64"),), {"axis": -1}),
             ((values(rng, (2, 3, 4), "float32"),), {"axis": (0, 2), "ord": np.inf}),
             ((values(rng, (3, 4), "int32"),), {"axis": 0, "ord": 0}),
             ((values(rng, (6,), "int8"),), {"ord": -np.inf}), ((values(rng, (6,), "float32"),), {"ord": 1})]
    cases += [((layout(values(rng, (3, 4), "float64")),), {"ord": -1}) for layout in LAYOUTS]
    return cases


_PERFORM = "perform: numpy.linalg.{} (no C)"
_LINALG_RESULT = "float64; float32 for float32 (numpy.linalg's)"

ROWS = [
    Row("matrix_inverse", np.linalg.inv, _LINALG_RESULT, "-inv(x).T @ g @ inv(x).T (PyTensor's MatrixInverse)",
        _PERFORM.format("inv"), "product", examples=_square_examples, differentiable=True,
        extra={"rtol": {"float32": 1e-4}, "default_fast_run": False},
        notes="PyTensor's linalg.inv, Theano's nlinalg.matrix_inverse; a square matrix"),
    Row("det", np.linalg.det, _LINALG_RESULT + ", 0-d", "g * det(x) * inv(x).T (PyTensor's Det)",
        _PERFORM.format("det"), "product", examples=_square_examples, differentiable=True,
        extra={"rtol": {"float32": 1e-4}, "default_fast_run": False}),
    Row("solve", np.linalg.solve, "the result type of a and b, as float (numpy.linalg's)",
        "b: solve(a.T, g); a: -(that) x.T (PyTensor's Solve)", _PERFORM.format("solve"), "product", nin=2,
        examples=_solve_examples, differentiable=True,
        extra={"rtol": {"float32": 1e-4}, "default_fast_run": False}, notes="b a vector or a matrix"),
    Row("cholesky", np.linalg.cholesky, _LINALG_RESULT, "PyTensor's Cholesky gradient (Murray 2016), for symmetric "
        "x (tests/tensor/test_language_porting.py checks it through r @ r.T)", _PERFORM.format("cholesky"), "product",
        examples=_spd_examples, extra={"rtol": {"float32": 1e-4}, "default_fast_run": False},
        notes="the lower factor; numpy's LinAlgError when x is not positive definite"),
    Row("eigh", _np_eigh, _LINALG_RESULT + " (eigenvalues real)", "none (grad raises NotImplementedError)",
        _PERFORM.format("eigh"), "product", examples=_spd_examples,
        extra={"apply": _apply_eigh, "rtol": {"float32": 1e-3}, "default_fast_run": False},
        notes="[w, v], eigenvalues ascending; the table compares eigenvectors with signs fixed"),
    Row("svd", _np_svd, _LINALG_RESULT, "none (grad raises NotImplementedError)", _PERFORM.format("svd"),
        "product", examples=_svd_examples,
        extra={"apply": _apply_svd, "rtol": {"float32": 1e-3}, "default_fast_run": False},
        notes="[U, s, Vh], or s with compute_uv=False; the table compares U's columns with signs fixed"),
    Row("norm", _np_norm, "float64; float32 for float32", "the pieces': abs, sum, max, sqrt (matrix 2, -2, nuc: "
        "none, through svd)", "Elemwise and reduction C; svd's perform for matrix 2, -2 and nuc", "product",
        examples=_norm_examples, differentiable=True, extra={"rtol": {"float32": 1e-4}, "default_fast_run": False},
        notes="numpy.linalg.norm: vector norms over one axis, matrix norms over two"),
]

"""The table's product rows: dot, matmul, outer, tensordot, batched_dot, vecdot, matvec, vecmat, cov,
batched_tensordot.

Each row's `examples(rng)` returns (args, kwargs) cases: numpy arrays stand for the tensor operands. The
cases cover every dtype (both operands of it, and a mixed pair), vectors and stacks with broadcast batch
axes, 0-size axes, and Fortran, strided and negative-stride operands.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.language.reduction_rows import LAYOUTS, values
from opkit.core.tensor.language.row import ALL_DTYPES, Row

FAMILY = "product"
PRODUCTS = "opkit/core/tensor/products/matmul.py"


def _pairs(rng, shapes, dtypes=ALL_DTYPES):
    """One case per dtype, both operands of it, the operand shapes taken in turn from `shapes`."""
    cases = []
    for i, dtype in enumerate(dtypes):
        left, right = shapes[i % len(shapes)]
        cases.append(((values(rng, left, dtype, -4, 5), values(rng, right, dtype, -4, 5)), {}))
    return cases


def _mixed_and_layouts(rng, left, right, kwargs=None):
    kwargs = kwargs or {}
    cases = [((values(rng, left, "int8", -4, 5), values(rng, right, "float32")), dict(kwargs)),
             ((values(rng, left, "uint16", 0, 5), values(rng, right, "int16", -4, 5)), dict(kwargs))]
    cases += [((layout(values(rng, left, "float64")), values(rng, right, "float64")), dict(kwargs))
              for layout in LAYOUTS]
    cases.append(((values(rng, left, "float64"), LAYOUTS[2](values(rng, right, "float64"))), dict(kwargs)))
    return cases


def _dot_examples(rng):
    cases = _pairs(rng, [((3, 4), (4, 2)), ((4,), (4, 3)), ((3, 4), (4,)), ((5,), (5,))])
    cases += _mixed_and_layouts(rng, (3, 4), (4, 2))
    cases += [((values(rng, (0, 4), "float64"), values(rng, (4, 3), "float64")), {}),
              ((values(rng, (3, 0), "float32"), values(rng, (0, 2), "float32")), {})]
    return cases


def _matmul_examples(rng):
    cases = _pairs(rng, [((2, 3, 4), (4, 2)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (4, 2)),
                         ((2, 3, 4), (4,))])
    cases += _mixed_and_layouts(rng, (2, 3, 4), (2, 4, 3))
    cases += [((values(rng, (0, 3, 4), "float64"), values(rng, (4, 2), "float64")), {}),
              ((values(rng, (2, 3, 0), "float32"), values(rng, (2, 0, 2), "float32")), {}),
              ((values(rng, (2, 3, 4), "float32"), values(rng, (4, 2), "float32")), {"dtype": "float64"})]
    return cases


def _outer_examples(rng):
    cases = _pairs(rng, [((3,), (4,)), ((2, 3), (4,)), ((0,), (3,))])
    return cases + _mixed_and_layouts(rng, (3, 2), (4,))


def _tensordot_examples(rng):
    cases = [(case[0], {"axes": axes}) for case, axes in
             zip(_pairs(rng, [((2, 3, 4), (3, 4, 5)), ((2, 3), (3, 2)), ((2, 3, 4), (4, 2, 3))]),
                 [2, 1, [[0, 2], [1, 0]]] * 4)]
    cases += _mixed_and_layouts(rng, (3, 4), (4, 2), {"axes": 1})
    cases += [((values(rng, (2, 3), "float64"), values(rng, (4,), "float64")), {"axes": 0}),
              ((values(rng, (0, 3), "float64"), values(rng, (3, 2), "float64")), {"axes": [[1], [0]]}),
              ((values(rng, (2, 3, 4), "float64"), values(rng, (4, 3), "float64")), {"axes": [[-1, 1], [0, -1]]})]
    return cases


def _batched_dot_examples(rng):
    cases = _pairs(rng, [((2, 3, 4), (2, 4, 5)), ((2, 4), (2, 4, 3)), ((3, 4), (3, 4)), ((2, 3, 4), (2, 4))])
    cases += _mixed_and_layouts(rng, (2, 3, 4), (2, 4, 2))
    cases += [((values(rng, (2, 3, 4, 5), "float64"), values(rng, (2, 5, 3), "float64")), {}),
              ((values(rng, (3,), "float64"), values(rng, (3, 2, 2), "float64")), {}),
              ((values(rng, (0, 3, 4), "float64"), values(rng, (0, 4, 2), "float64")), {})]
    return cases


def _np_batched_dot(a, b):
    """Theano's batched_dot: out[i] = tensordot(a[i], b[i]) over a's last axis and b's axis max(1, b.ndim - 2)."""
    if a.ndim == 1:
        return a.reshape((-1,) + (1,) * (b.ndim - 1)) * b
    if b.ndim == 1:
        return a * b.reshape((-1,) + (1,) * (a.ndim - 1))
    moved = np.moveaxis(b, max(1, b.ndim - 2), 1)
    out = np.zeros(a.shape[:-1] + moved.shape[2:], dtype=np.result_type(a, b))
    for i in range(a.shape[0]):
        out[i] = np.tensordot(a[i], moved[i], [[a.ndim - 2], [0]])
    return out


def _np_matmul(x1, x2, dtype=None):
    result = np.matmul(x1, x2)
    return result.astype(dtype) if dtype is not None else result


def _vecdot_examples(rng):
    cases = _pairs(rng, [((3, 4), (3, 4)), ((4,), (4,)), ((2, 3, 4), (3, 4)), ((2, 1, 4), (3, 4))])
    cases += _mixed_and_layouts(rng, (3, 4), (3, 4))
    cases += [((values(rng, (0, 4), "float64"), values(rng, (0, 4), "float64")), {}),
              ((values(rng, (3, 0), "float32"), values(rng, (3, 0), "float32")), {}),
              ((values(rng, (2, 5), "float32"), values(rng, (5,), "float32")), {"dtype": "float64"})]
    return cases


def _matvec_examples(rng):
    cases = _pairs(rng, [((3, 4), (4,)), ((2, 3, 4), (2, 4)), ((2, 3, 4), (4,)), ((3, 4), (2, 4))])
    cases += _mixed_and_layouts(rng, (3, 4), (4,))
    cases += [((values(rng, (0, 4), "float64"), values(rng, (4,), "float64")), {}),
              ((values(rng, (3, 0), "float64"), values(rng, (0,), "float64")), {})]
    return cases


def _vecmat_examples(rng):
    return [((b, np.swapaxes(a, -1, -2)), kwargs) for (a, b), kwargs in _matvec_examples(rng)]


def _cov_examples(rng):
    dtypes = [d for d in ALL_DTYPES if d != "float16"]
    options = ({}, {"rowvar": False}, {"bias": True}, {"ddof": 2}, {"rowvar": False, "ddof": 0})
    cases = [((values(rng, (3, 6), d, -4, 5),), dict(options[i % len(options)])) for i, d in enumerate(dtypes)]
    cases += [((layout(values(rng, (4, 5), "float64")),), {}) for layout in LAYOUTS]
    cases += [((values(rng, (6,), "float64"),), {}), ((values(rng, (6,), "int32"),), {"bias": True}),
              ((values(rng, (2, 5), "float64"), values(rng, (3, 5), "float32")), {}),
              ((values(rng, (5, 2), "float64"), values(rng, (5,), "float64")), {"rowvar": False}),
              ((values(rng, (1, 5), "float64"),), {})]
    return cases


def _batched_tensordot_examples(rng):
    axes = [2, 1, [[1, 2], [2, 1]]]
    cases = [(case[0], {"axes": axes[i % len(axes)]}) for i, case in
             enumerate(_pairs(rng, [((2, 3, 4), (2, 3, 4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 3))]))]
    cases += _mixed_and_layouts(rng, (2, 3, 4), (2, 4, 2), {"axes": 1})
    cases += [((values(rng, (2, 3), "float64"), values(rng, (2, 3), "float64")), {"axes": 1}),
              ((values(rng, (0, 3, 4), "float64"), values(rng, (0, 4, 2), "float64")), {"axes": [[2], [1]]}),
              ((values(rng, (2, 3, 4), "float64"), values(rng, (2, 5), "float64")), {"axes": 0})]
    return cases


def _np_vecdot(x1, x2, dtype=None):
    result = np.vecdot(x1, x2)
    return result.astype(dtype) if dtype is not None else result


def _np_batched_tensordot(x, y, axes=2):
    """Theano's batched_tensordot: tensordot of x[i] and y[i] batch by batch (axes count the batch axis)."""
    if isinstance(axes, int):
        axes = [list(range(x.ndim - axes, x.ndim)), list(range(1, axes + 1))]
    inner = [[a - 1 for a in axes[0]], [b - 1 for b in axes[1]]]
    shape = [x.shape[i] for i in range(1, x.ndim) if i not in axes[0]] + \
        [y.shape[j] for j in range(1, y.ndim) if j not in axes[1]]
    out = np.zeros((x.shape[0], *shape), dtype=np.result_type(x, y))
    for i in range(x.shape[0]):
        out[i] = np.tensordot(x[i], y[i], inner)
    return out


# Graphs of Dot, Matmul, views and reductions whose C the rows above compile: the default run's FAST_RUN test
# leaves them out (each would compile new view and reshape modules, seconds of a cold cache); the soak run has them.
_SOAK_FAST_RUN = {"default_fast_run": False}

_GRAD = "PyTensor's: the output gradient times the other operand, transposed; integer operands get theirs too"

ROWS = [
    Row("dot", np.dot, "numpy's promotion of the operands' dtypes (bool with bool: bool)", _GRAD,
        "perform: numpy.dot (numpy's BLAS for floats)", FAMILY, nin=2, examples=_dot_examples, differentiable=True,
        notes="vectors and matrices"),
    Row("matmul", _np_matmul, "numpy's promotion of the operands' dtypes, or `dtype`",
        "matmul of the output gradient with the other operand's last two axes swapped, summed over broadcast "
        "batch axes", f"{PRODUCTS}: Dot for vectors and matrices; Matmul's perform: numpy.matmul for stacks",
        FAMILY, nin=2, examples=_matmul_examples, differentiable=True,
        notes="also `x @ y`; scalars raise ValueError; batch axes broadcast (PyTensor's Blockwise of Dot)"),
    Row("outer", np.outer, "numpy's promotion of the operands' dtypes",
        "through its graph: the output gradient times the other operand, summed", f"{PRODUCTS}: an elementwise mul "
        "of the flattened operands (its C)", FAMILY, nin=2, examples=_outer_examples, differentiable=True),
    Row("tensordot", np.tensordot, "numpy's promotion of the operands' dtypes",
        "through its graph (transposes, reshapes and Dot)", f"{PRODUCTS}: transposes and reshapes around one Dot",
        FAMILY, nin=2, examples=_tensordot_examples, differentiable=True),
    Row("batched_dot", _np_batched_dot, "numpy's promotion of the operands' dtypes",
        "through its graph (reshapes and Matmul)", f"{PRODUCTS}: reshapes around one Matmul (numpy.matmul)", FAMILY,
        nin=2, examples=_batched_dot_examples, differentiable=True,
        notes="Theano's: the contraction of a's last axis with b's axis max(1, b.ndim - 2), batch by batch"),
    Row("vecdot", _np_vecdot, "numpy's promotion of the operands' dtypes, or `dtype`",
        "through its graph (matmul's gradient)", f"{PRODUCTS}: a Matmul of (..., 1, K) and (..., K, 1) stacks "
        "(Dot for vectors)", FAMILY, nin=2, examples=_vecdot_examples, differentiable=True, extra=_SOAK_FAST_RUN,
        notes="numpy 2's: the last axes contracted (x1 conjugated), the others broadcast"),
    Row("matvec", np.matvec, "numpy's promotion of the operands' dtypes", "through its graph (matmul's gradient)",
        f"{PRODUCTS}: matmul of the matrix and the vector as a column", FAMILY, nin=2, examples=_matvec_examples,
        differentiable=True, extra=_SOAK_FAST_RUN, notes="numpy 2's: (..., M, K) times (..., K), batch axes broadcast"),
    Row("vecmat", np.vecmat, "numpy's promotion of the operands' dtypes", "through its graph (matmul's gradient)",
        f"{PRODUCTS}: matmul of the vector as a row and the matrix", FAMILY, nin=2, examples=_vecmat_examples,
        differentiable=True, extra=_SOAK_FAST_RUN,
        notes="numpy 2's: (..., K), conjugated, times (..., K, N), batch axes broadcast"),
    Row("cov", np.cov, "float64 (complex128 for complex), numpy's", "through its graph (mean, matmul)",
        f"{PRODUCTS} (vector_products.py): a centred matmul, the elementwise and reduction C", FAMILY, nin=1,
        examples=_cov_examples, differentiable=True, extra=_SOAK_FAST_RUN,
        notes="fweights and aweights raise NotImplementedError (as PyTensor's); numpy squeezes length-1 axes it "
        "finds when run, opkit those the types know"),
    Row("batched_tensordot", _np_batched_tensordot, "numpy's promotion of the operands' dtypes",
        "through its graph (transposes, reshapes and Matmul)", f"{PRODUCTS}: transposes and reshapes around one "
        "Matmul", FAMILY, nin=2, examples=_batched_tensordot_examples, differentiable=True,
        extra=_SOAK_FAST_RUN,
        notes="Theano's: tensordot batch by batch along axis 0; an integer `axes` sums x's last axes with y's "
              "axes 1 to `axes`"),
]

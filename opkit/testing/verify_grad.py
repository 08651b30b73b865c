"""verify_grad: compare an op's symbolic gradient with central finite differences."""

from __future__ import annotations

import numpy as np

from opkit.testing.case import as_random_state

# Finite-difference step and error tolerance for each input dtype.
DEFAULT_EPS = {"float64": 1e-7, "float32": 1e-3, "float16": 1e-1}
DEFAULT_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 5e-2}


class GradientError(AssertionError):
    """The symbolic gradient disagrees with finite differences; the worst element is named."""

    def __init__(self, arg, err_pos, shape, abs_err, rel_err, abs_tol, rel_tol, analytic=None, numeric=None):
        self.arg = arg
        self.err_pos = err_pos
        self.shape = shape
        self.abs_err = abs_err
        self.rel_err = rel_err
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.analytic = analytic
        self.numeric = numeric
        index = np.unravel_index(err_pos, shape) if shape else ()
        super().__init__(
            "verify_grad: the symbolic gradient disagrees with finite differences.\n"
            f"worst element: input {arg}, element {err_pos} (index {tuple(map(int, index))} of shape {shape})\n"
            f"symbolic gradient: {analytic}\n"
            f"numeric gradient: {numeric}\n"
            f"absolute error: {abs_err:.6g} (tolerance {abs_tol:g})\n"
            f"relative error: {rel_err:.6g} (tolerance {rel_tol:g})")


def verify_grad(fun, pt, n_tests=2, rng=None, eps=None, abs_tol=None, rel_tol=None, mode=None,
                cast_to_output_type=False):
    """Check the gradient of `fun` at the points `pt` against central finite differences.

    `fun` is an Op or a callable taking one symbolic input per array in `pt`
    and returning one output. The cost is sum(output * random projection);
    its symbolic gradient must match the numeric one within `abs_tol` or
    `rel_tol` (defaults by dtype). Raises GradientError otherwise.
    """
    # lazy: opkit.testing imports this module eagerly, and the pytest plugin opkit.testing: neither loads opkit's core
    from opkit.testing.gradient_functions import cost_and_gradient

    pt = [np.array(p) for p in pt]
    dtypes = _float_dtypes(pt)
    abs_tol = max(DEFAULT_TOL[d] for d in dtypes) if abs_tol is None else abs_tol
    rel_tol = max(DEFAULT_TOL[d] for d in dtypes) if rel_tol is None else rel_tol
    rng = as_random_state(rng)
    out_shape, proj_dtype, cost_fn, grad_fn = cost_and_gradient(fun, pt, mode, cast_to_output_type)
    for _ in range(n_tests):
        r = np.asarray(_random(rng, out_shape) + 0.5, dtype=proj_dtype)
        numeric = numeric_grad(lambda *xs: cost_fn(*xs, r), pt, eps)
        analytic = grad_fn(*_copies(pt), r)
        check_gradients(analytic, numeric, abs_tol, rel_tol)


verify_grad.E_grad = GradientError


def _float_dtypes(pt):
    for i, p in enumerate(pt):
        if str(p.dtype) not in DEFAULT_TOL:
            raise TypeError(f"verify_grad works on floating-point inputs only, but input {i} has dtype {p.dtype}")
    return {str(p.dtype) for p in pt}


def _copies(pt):
    return [p.copy() for p in pt]


def _random(rng, shape):
    if isinstance(rng, np.random.Generator):
        return rng.random(shape)
    return rng.rand(*shape)


def numeric_grad(f, pt, eps=None):
    """Return the central finite-difference gradient of the scalar function `f` at the arrays `pt`."""
    return [numeric_jacobian(f, pt, i, eps).reshape(np.shape(p)) for i, p in enumerate(pt)]


def numeric_jacobian(f, pt, i, eps=None):
    """Return d f(*pt) / d pt[i] by central differences, shaped (f's size, pt[i]'s size).

    The step is the difference of the perturbed values as stored, so the
    rounding of the input dtype does not bias the quotient.
    """
    # C order: a Fortran-order or strided point's reshape(-1) would be a copy, and the steps would perturb nothing.
    args = [np.array(p, copy=True, order="C") for p in pt]
    flat = args[i].reshape(-1)  # a view: writing it perturbs args[i]
    assert np.shares_memory(flat, args[i]) or flat.size == 0
    step = DEFAULT_EPS.get(str(args[i].dtype), 1e-7) if eps is None else eps
    columns = []
    for j in range(flat.size):
        original = flat[j]
        flat[j] = original + step
        high_x, high = float(flat[j]), np.array(f(*args), dtype="float64").reshape(-1)
        flat[j] = original - step
        low_x, low = float(flat[j]), np.array(f(*args), dtype="float64").reshape(-1)
        flat[j] = original
        columns.append((high - low) / (high_x - low_x))
    if not columns:
        return np.zeros((np.size(f(*args)), 0))
    return np.stack(columns, axis=1)


def check_gradients(analytic, numeric, abs_tol, rel_tol):
    """Raise GradientError where an analytic gradient exceeds both tolerances against the numeric one."""
    worst = None
    for arg, (a, n) in enumerate(zip(analytic, numeric)):
        a, n = np.asarray(a, dtype="float64"), np.asarray(n, dtype="float64")
        if a.shape != n.shape:
            raise GradientError(arg, 0, n.shape, np.inf, np.inf, abs_tol, rel_tol,
                                f"an array of shape {a.shape}", f"an array of shape {n.shape}")
        abs_err = np.abs(a - n)
        rel_err = abs_err / np.maximum(np.abs(a) + np.abs(n), 1e-8)
        scaled = np.nan_to_num(np.minimum(abs_err / abs_tol, rel_err / rel_tol), nan=np.inf)
        if scaled.size == 0:
            continue
        pos = int(np.argmax(scaled))
        if worst is None or scaled.flat[pos] > worst[0]:
            worst = (scaled.flat[pos], arg, pos, a, n, abs_err.flat[pos], rel_err.flat[pos])
    if worst is not None and worst[0] > 1:
        _, arg, pos, a, n, abs_err, rel_err = worst
        raise GradientError(arg, pos, a.shape, float(abs_err), float(rel_err), abs_tol, rel_tol,
                            float(a.flat[pos]), float(n.flat[pos]))

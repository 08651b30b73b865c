"""Scalar functions of scipy.special (erf, gammaln, psi, i0, j0, gammainc, beta, ...) and the special functions
PyTensor defines by a formula (log1mexp, xlogx, xlogy0, xlog1py).

- dtype: numpy's rule for a float function, np.exp's for one operand and np.arctan2's for two (bool,
  int8 and uint8 give float16, int16 and uint16 float32, wider integers float64; float16 stays float16).
  Complex operands are refused (TypeError when the node is built): opkit's special functions are real.
- values: scipy.special's. Each has C only where C computes scipy's value within the ulp bound of its
  row (tests/tensor/test_language_elementwise.py measures it): a float32 result is computed in double
  and rounded, as scipy's float loops do, which makes libm's erf, erfc, lgamma and tgamma scipy's to
  the last bit; libm's double erf is within 3 ulps of scipy's (cephes); its double erfc, lgamma and
  tgamma are hundreds of ulps from scipy's in the tails (and near the roots of lgamma), and libm's j0
  and j1 millions near their roots: those run perform. psi, i0, i1, erfcx and erfinv have C of opkit's own
  (scalar_special.c beside this module: series, asymptotic expansions, a continued fraction and Halley steps,
  each named there), within the ulps of their rows. Everywhere else perform calls scipy.special,
  imported on the first call (`scipy_special`), so that building graphs and running C never needs
  scipy; without it, perform raises ImportError saying what to install.
- log1mexp, xlogx, xlogy0 and xlog1py have no scipy function: PyTensor's formula, written with numpy in the
  result's dtype, is the reference, and the C is the same formula (libm against numpy's SIMD log and
  exp: a few float32 ulps, as for sigmoid). logit is scipy's formula (xsf), in C as in scipy.
"""

from __future__ import annotations

import math

import numpy as np

from opkit.core.tensor.scalars.scalar_ops import ScalarOp, mark_builtins

_PYTHON_NUMBERS = (bool, int, float, complex)


def _is_python_number(value):
    return type(value) in _PYTHON_NUMBERS


def float_result_dtype(name, operands):
    """Return numpy's dtype of a real float function of `operands` (arrays, dtype names or Python numbers).

    np.exp's promotion for one operand, np.arctan2's for two (folded left over more); TypeError for complex or
    non-numeric operands.
    """
    samples = []
    for value in operands:
        if _is_python_number(value):
            kind = "c" if isinstance(value, complex) else "f"
            samples.append(value)
        else:
            dtype = np.dtype(value) if isinstance(value, str) else np.asarray(value).dtype
            kind = dtype.kind
            samples.append(np.empty(0, dtype))
        if kind == "c":
            raise TypeError(f"{name} is not defined for complex inputs (dtype {_described(value)}): opkit's {name} "
                            f"is a real function of bool, integer and float tensors")
        if kind not in "biuf":
            raise TypeError(f"{name} is not defined for inputs of dtype {_described(value)}")
    with np.errstate(all="ignore"):
        if len(samples) == 1:
            return np.asarray(np.exp(samples[0])).dtype
        dtype = np.asarray(np.arctan2(samples[0], samples[1])).dtype
        for sample in samples[2:]:
            dtype = np.asarray(np.arctan2(np.empty(0, dtype), sample)).dtype
        return dtype


def _described(value):
    if _is_python_number(value):
        return f"Python {type(value).__name__}"
    return str(np.dtype(value) if isinstance(value, str) else np.asarray(value).dtype)


def scipy_special(name, scipy_name):
    """Return the module scipy.special, or raise ImportError saying that `name` needs it."""
    try:
        import scipy.special
    except ImportError as exc:
        raise ImportError(f"{name} needs scipy: opkit computes it with scipy.special.{scipy_name} where it has no "
                          f"C code (float16 and float64 results, FAST_COMPILE)\nInstall scipy: pip install scipy",
                          name="scipy") from exc
    return scipy.special


# scipy's polygamma(n, x) sums about |x| terms of zeta(n + 1, x) for a negative non-integer x: 9 s per element at
# -1e8, years at -1e15 (every float below -2**52 is an integer, a pole, answered at once). Below REFLECT opkit
# takes the reflection formula for the orders 0 and 1 (psi(x) = psi(1 - x) - pi cot(pi x), and
# polygamma(1, x) = pi**2 / sin(pi x)**2 - polygamma(1, 1 - x)), where scipy's sum would give the same value to
# rounding; higher orders give NaN there.
REFLECT = -1e5


def bounded_polygamma(special, n, x):
    """scipy.special.polygamma(n, x), with the reflection formula below REFLECT (see there)."""
    n, x = np.broadcast_arrays(np.asarray(n), np.asarray(x))
    with np.errstate(all="ignore"):
        far = (x < REFLECT) & (x != np.floor(x))
        if not far.any():
            return special.polygamma(n, x)
        result = np.full(x.shape, np.nan)
        near = ~far
        result[near] = special.polygamma(n[near], x[near])
        xf, nf = x[far].astype(np.float64), n[far]
        offset = np.pi * (xf - np.round(xf))  # exact: x's distance to the nearest integer, times pi
        reflected = np.full(xf.shape, np.nan)
        reflected[nf == 0] = special.psi(xf[nf == 0])  # scipy's psi reflects by itself
        one = nf == 1
        reflected[one] = np.pi ** 2 / np.sin(offset[one]) ** 2 - special.polygamma(1, 1 - xf[one])
        result[far] = reflected
    return result


def _scipy_function(name, scipy_name=None, leading=(), function=None):
    """The perform of a scipy.special function `scipy_name` (default `name`): numpy's float dtype, scipy's values.

    A float16 result is computed in float32 (scipy has no half loops) and rounded; an empty result needs no
    scipy, so building a node (which asks for the dtype of empty operands) never imports it. `leading`
    operands come first (polygamma's order for tri_gamma); `function(scipy.special)` gives the function to call
    where it is not scipy's own.
    """
    scipy_name = scipy_name or name
    chosen = function

    def compute(*values):
        dtype = float_result_dtype(name, values)
        arrays = [np.asarray(v) for v in values]
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        if math.prod(shape) == 0:
            return np.empty(shape, dtype)
        special = scipy_special(name, scipy_name)
        function = getattr(special, scipy_name) if chosen is None else chosen(special)
        wide = np.dtype("float32") if dtype == np.float16 else dtype
        with np.errstate(all="ignore"):
            result = function(*leading, *[a.astype(wide, copy=False) for a in arrays])
        return np.asarray(result).astype(dtype, copy=False)

    compute.__name__ = name
    compute.__qualname__ = name
    return compute


def _formula(name, formula):
    """The perform (and reference) of a function PyTensor defines by `formula`: numpy, in the result's dtype."""
    def compute(*values):
        dtype = float_result_dtype(name, values)
        arrays = [np.asarray(v).astype(dtype, copy=False) if not _is_python_number(v) else dtype.type(v)
                  for v in values]
        with np.errstate(all="ignore"):
            return np.asarray(formula(dtype.type, *arrays)).astype(dtype, copy=False)

    compute.__name__ = name
    compute.__qualname__ = name
    return compute


def _log1mexp(t, x):
    # PyTensor's Log1mexp: log1p(-exp(x)) below log(1/2), log(-expm1(x)) above (each accurate there).
    return np.where(x < t(-0.6931471805599453), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _xlogx(t, x):
    return np.where(x == 0, t(0), x * np.log(x))


def _xlogy0(t, x, y):
    # PyTensor's XlogY0: 0 wherever x is 0, also where y is NaN (scipy.special.xlogy gives NaN there).
    return np.where(x == 0, t(0), x * np.log(y))


def _xlog1py(t, x, y):
    # PyTensor's XLog1PY: 0 wherever x is 0.
    return np.where(x == 0, t(0), x * np.log1p(y))


class SpecialScalarOp(ScalarOp):
    """A special function: float results only, with C for the float dtypes in `c_dtypes` (see the module)."""

    c_dtypes: tuple

    def __init__(self, name, nin, ufunc, c_macro=None, c_dtypes=("float32", "float64")):
        super().__init__(name, nin, ufunc, c_kinds="f", c_macro=c_macro)
        object.__setattr__(self, "c_dtypes", tuple(c_dtypes) if c_macro is not None else ())

    def output_dtype(self, operands):
        return str(float_result_dtype(self.name, operands))

    def has_c(self, out_dtype, operand_dtypes=()):
        return str(np.dtype(out_dtype)) in self.c_dtypes and super().has_c(out_dtype, operand_dtypes)


def _scipy(name, nin=1, scipy_name=None, c_dtypes=(), leading=(), function=None):
    c_macro = name if c_dtypes else None
    return SpecialScalarOp(name, nin, _scipy_function(name, scipy_name, leading, function), c_macro, c_dtypes)


def _polygamma(special):
    return lambda n, x: bounded_polygamma(special, n, x)


# The C expression of each is a macro of opkit/templates/scalar_ops.c.j2 (c_macro), computed in double
# (scalar_math.c's helpers for lgamma, log1mexp, logit, xlogx, xlogy0; psi, i0, i1, erfcx and erfinv are opkit's own
# C, scalar_special.c beside this module).
erf = _scipy("erf", c_dtypes=("float32", "float64"))
erfc = _scipy("erfc", c_dtypes=("float32",))
erfcx = _scipy("erfcx", c_dtypes=("float32", "float64"))
erfinv = _scipy("erfinv", c_dtypes=("float32", "float64"))
erfcinv = _scipy("erfcinv")
gammaln = _scipy("gammaln", c_dtypes=("float32",))
gamma = _scipy("gamma", c_dtypes=("float32",))
psi = _scipy("psi", c_dtypes=("float32", "float64"))
tri_gamma = _scipy("tri_gamma", scipy_name="polygamma", leading=(1,), function=_polygamma)
polygamma = _scipy("polygamma", 2, function=_polygamma)
beta = _scipy("beta", 2)
betaln = _scipy("betaln", 2)
poch = _scipy("poch", 2)
gammainc = _scipy("gammainc", 2)
gammaincinv = _scipy("gammaincinv", 2)
gammainccinv = _scipy("gammainccinv", 2)
betainc = _scipy("betainc", 3)
betaincinv = _scipy("betaincinv", 3)
hyp2f1 = _scipy("hyp2f1", 4)
owens_t = _scipy("owens_t", 2)
ndtri_exp = _scipy("ndtri_exp")
jv = _scipy("jv", 2)
iv = _scipy("iv", 2)
ive = _scipy("ive", 2)
kv = _scipy("kv", 2)
kve = _scipy("kve", 2)
gammaincc = _scipy("gammaincc", 2)
i0 = _scipy("i0", c_dtypes=("float32", "float64"))
i1 = _scipy("i1", c_dtypes=("float32", "float64"))
j0 = _scipy("j0")
j1 = _scipy("j1")
logit = _scipy("logit", c_dtypes=("float32", "float64"))
log1mexp = SpecialScalarOp("log1mexp", 1, _formula("log1mexp", _log1mexp), "log1mexp")
xlogx = SpecialScalarOp("xlogx", 1, _formula("xlogx", _xlogx), "xlogx")
xlogy0 = SpecialScalarOp("xlogy0", 2, _formula("xlogy0", _xlogy0), "xlogy0")
xlog1py = SpecialScalarOp("xlog1py", 2, _formula("xlog1py", _xlog1py), "xlog1py")

ALL = {op.name: op for op in (erf, erfc, erfcx, erfinv, erfcinv, gammaln, gamma, psi, tri_gamma, polygamma, beta,
                              betaln, poch, gammainc, gammaincc, gammaincinv, gammainccinv, betainc, betaincinv, hyp2f1,
                              owens_t, ndtri_exp, jv, iv, ive, kv, kve, i0, i1, j0, j1, logit, log1mexp, xlogx, xlogy0,
                              xlog1py)}

mark_builtins(globals())

"""The table's special functions: scipy.special's erf, gammaln, psi, i0, j0, gammainc, beta, ... and the ones
PyTensor defines by a formula (log1mexp, xlogx, xlogy0, xlog1py, factorial).

Each is an Elemwise op over a scalar op of opkit/core/tensor/scalars/scalar_special.py. Its reference is
scipy.special's function with numpy's dtype rule of a float function (np.exp's for one input, np.arctan2's
for two): a float16 result is scipy's float32 value rounded. Inputs are bool, integer and float tensors;
complex ones are refused. The reference imports scipy when it is called, so that reading the table (the
docs page) does not need it. `extra` is elementwise_rows's ("ulp", "domains": per input (low, high) drawn
for every dtype, "grad_inputs"), and "c_dtypes": the result dtypes with C where not both float32 and float64.
"""

from __future__ import annotations

import functools

import numpy as np

from opkit.core.tensor.language.elementwise_rows import TEMPLATE
from opkit.core.tensor.language.row import Row
from opkit.core.tensor.scalars.scalar_special import REFLECT, bounded_polygamma

FAMILY = "special"
DTYPE = ("numpy's float rule: bool, int8, uint8 -> float16; int16, uint16 -> float32; wider integers -> "
         "float64; a float dtype is kept; complex refused (TypeError)")


def float_dtype(arrays):
    """numpy's result dtype of a float function of `arrays` (np.exp's, or np.arctan2's folded over two or more)."""
    if len(arrays) == 1:
        return np.exp(np.empty(0, arrays[0].dtype)).dtype
    dtype = arrays[0].dtype
    for array in arrays[1:]:
        dtype = np.arctan2(np.empty(0, dtype), np.empty(0, array.dtype)).dtype
    return dtype


def scipy_reference(name, scipy_name=None, leading=()):
    """scipy.special.`scipy_name` with numpy's float dtype; named so that the docs page says which function.

    polygamma is scalar_special.bounded_polygamma's: scipy's, but by the reflection formula far below zero, where
    scipy's series would take |x| steps.
    """
    scipy_name = scipy_name or name

    def reference(*arrays):
        import scipy.special

        arrays = [np.asarray(a) for a in arrays]
        dtype = float_dtype(arrays)
        wide = np.float32 if dtype == np.float16 else dtype
        function = getattr(scipy.special, scipy_name)
        if scipy_name == "polygamma":
            function = functools.partial(bounded_polygamma, scipy.special)
        with np.errstate(all="ignore"):
            result = function(*leading, *[a.astype(wide) for a in arrays])
        return np.asarray(result).astype(dtype)

    reference.__module__ = "scipy.special"
    reference.__name__ = reference.__qualname__ = scipy_name if not leading else f"{scipy_name}{leading}"
    return reference


def formula_reference(name, formula):
    """PyTensor's `formula`, computed with numpy in the result's dtype (no scipy function has these values)."""
    def reference(*arrays):
        arrays = [np.asarray(a) for a in arrays]
        dtype = float_dtype(arrays)
        with np.errstate(all="ignore"):
            return np.asarray(formula(dtype.type, *[a.astype(dtype) for a in arrays])).astype(dtype)

    reference.__qualname__ = reference.__name__ = f"_{name}"
    return reference


def c_in_double(name, dtypes, note=""):
    """The row's `c`: computed in double by the template's macro for `dtypes`, perform (scipy) otherwise."""
    text = f"{TEMPLATE} `{name}` (in double: {dtypes} results); others: perform, scipy.special.{name}"
    return f"{text}; {note}" if note else text


def perform(name, why=""):
    text = f"perform: scipy.special.{name}"
    return f"{text} ({why})" if why else text


def special(name, reference, c, gradient, nin=1, ulp=(0, 0), differentiable=True, grad_domain=(0.5, 3.0),
            aliases=(), notes="", dtype_rule=DTYPE, **extra):
    return Row(name=name, reference=reference, dtype_rule=dtype_rule, gradient=gradient, c=c, family=FAMILY, nin=nin,
               differentiable=differentiable, grad_domain=grad_domain, aliases=tuple(aliases), notes=notes,
               extra={"ulp": tuple(ulp), **extra})


def _log1mexp(t, x):
    return np.where(x < t(-0.6931471805599453), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _xlogx(t, x):
    return np.where(x == 0, t(0), x * np.log(x))


def _xlogy0(t, x, y):
    return np.where(x == 0, t(0), x * np.log(y))


def _xlog1py(t, x, y):
    return np.where(x == 0, t(0), x * np.log1p(y))


def _factorial(n):
    n = np.asarray(n)
    with np.errstate(all="ignore"):
        return scipy_reference("gamma")(np.add(n, 1))


_factorial.__module__ = "scipy.special"
_factorial.__name__ = _factorial.__qualname__ = "gamma(n + 1)"

def _chi2sf(x, k):
    return scipy_reference("gammaincc")(np.true_divide(k, 2), np.true_divide(x, 2))


def _gammau(k, x):
    return np.multiply(scipy_reference("gammaincc")(k, x), scipy_reference("gamma")(k))


def _gammal(k, x):
    return np.multiply(scipy_reference("gammainc")(k, x), scipy_reference("gamma")(k))


for _function, _name in ((_chi2sf, "gammaincc(k / 2, x / 2)"), (_gammau, "gammaincc(k, x) * gamma(k)"),
                         (_gammal, "gammainc(k, x) * gamma(k)")):
    _function.__module__ = "scipy.special"
    _function.__name__ = _function.__qualname__ = _name

POLYGAMMA = (f"Below x = {REFLECT:g} (not an integer), where scipy's series takes |x| steps (seconds at -1e8, years "
             "at -1e15), the reflection formula for the orders 0 and 1, NaN for higher ones.")
ORDER = "not implemented for the order v (NullType); "
TAILS = "libm's double is hundreds of ulps from scipy's in the tails"
ROOTS = "libm's j0/j1 are millions of ulps from scipy's near their roots"
# opkit's own C (opkit/core/tensor/scalars/scalar_special.c): the method of each, and where its ulps come from (the
# row's bound is the largest distance from scipy measured over 10^6 points, benchmarks/special_c.py --ulps).
OWN_C = {
    "psi": "opkit's C (scalar_special.c): Taylor series at the roots, recurrence, asymptotic series, reflection; "
           "near its roots below -1, psi(1 - x) and pi / tan(pi x) cancel in scipy's formula as in opkit's, and there "
           "the two differ by a few ulps of psi(1 - x) (up to 256 float64 ulps of the result at 10^6 points)",
    "i0": "opkit's C (scalar_special.c): power series below 20, asymptotic expansion above; scipy's i0 is itself "
          "up to 4 ulps off (40-digit check) and overflows where e**x does (x > 709.78), as here",
    "i1": "opkit's C (scalar_special.c): power series below 20, asymptotic expansion above; scipy's i1 is itself up "
          "to 14 ulps off near x = 8 (40-digit check)",
    "erfcx": "opkit's C (scalar_special.c): exp(x**2) * libm's erfc below 5, Laplace's continued fraction above; "
             "scipy's erfcx is itself up to 7 ulps off in [0, 0.5] (40-digit check)",
    "erfinv": "opkit's C (scalar_special.c): polynomials in Giles's w = -log(1 - y**2) and one Halley step on libm's "
              "erf/erfc; scipy's float32 erfinv computes in float (3 float32 ulps)",
}


def own_c(name, ulp):
    """The `c` of a row with opkit's own C: the method, and its ulp bound from scipy (float32, float64)."""
    return (f"{TEMPLATE} `{name}` (in double: float32, float64 results): {OWN_C[name]}; at most {ulp[0]} float32 and "
            f"{ulp[1]} float64 ulps from scipy (benchmarks/special_c.py --ulps); others: perform, scipy.special.{name}")


PSI_ROOTS = ("Near psi's roots below -1, psi(1 - x) and pi / tan(pi x) cancel, in scipy's formula as in opkit's: "
             "there the two differ by more than the bound (up to 256 float64 ulps at 10^6 points; float32: none).")

ROWS = [
    special("erf", scipy_reference("erf"), c_in_double("erf", "float32, float64"), "g * 2 / sqrt(pi) * exp(-x**2)",
            ulp=(0, 3), grad_domain=(-2.0, 2.0)),
    special("erfc", scipy_reference("erfc"), c_in_double("erfc", "float32", TAILS),
            "-g * 2 / sqrt(pi) * exp(-x**2)", grad_domain=(-2.0, 2.0), c_dtypes=("float32",)),
    special("erfcx", scipy_reference("erfcx"), own_c("erfcx", (0, 9)),
            "g * (2 * x * erfcx(x) - 2 / sqrt(pi))", ulp=(0, 9), grad_domain=(-2.0, 2.0)),
    special("erfinv", scipy_reference("erfinv"), own_c("erfinv", (3, 3)),
            "g * sqrt(pi) / 2 * exp(erfinv(x)**2)", ulp=(3, 3), grad_domain=(-0.9, 0.9)),
    special("erfcinv", scipy_reference("erfcinv"), perform("erfcinv"), "-g * sqrt(pi) / 2 * exp(erfcinv(x)**2)",
            grad_domain=(0.1, 1.9)),
    special("gammaln", scipy_reference("gammaln"), c_in_double("gammaln", "float32",
            "lgamma_r; " + TAILS + " and near the roots"), "g * psi(x)", c_dtypes=("float32",)),
    special("gamma", scipy_reference("gamma"), c_in_double("gamma", "float32", "tgamma; " + TAILS),
            "g * gamma(x) * psi(x)", c_dtypes=("float32",)),
    special("psi", scipy_reference("psi"), own_c("psi", (0, 12)), "g * tri_gamma(x)", ulp=(0, 12),
            aliases=("digamma",), notes=PSI_ROOTS),
    special("tri_gamma", scipy_reference("tri_gamma", "polygamma", (1,)), perform("polygamma", "polygamma(1, x)"),
            "g * polygamma(2, x)", notes=POLYGAMMA),
    special("polygamma", scipy_reference("polygamma"), perform("polygamma"),
            "undefined for n (an integer); g * polygamma(n + 1, x)", nin=2, domains=((0, 4), None),
            grad_inputs=(1,), grad_domain=(1.0, 3.0), notes=POLYGAMMA),
    special("beta", scipy_reference("beta"), perform("beta"), "g * beta(a, b) * (psi(a) - psi(a + b)), likewise b",
            nin=2),
    special("betaln", scipy_reference("betaln"), perform("betaln"), "g * (psi(a) - psi(a + b)), likewise b", nin=2),
    special("poch", scipy_reference("poch"), perform("poch"),
            "g * poch(z, m) * (psi(z + m) - psi(z)), g * poch(z, m) * psi(z + m)", nin=2),
    special("gammainc", scipy_reference("gammainc"), perform("gammainc"),
            "not implemented for k (NullType); g * exp(-x) * x**(k - 1) / gamma(k)", nin=2, grad_inputs=(1,)),
    special("gammaincc", scipy_reference("gammaincc"), perform("gammaincc"),
            "not implemented for k (NullType); -g * exp(-x) * x**(k - 1) / gamma(k)", nin=2, grad_inputs=(1,)),
    special("gammau", _gammau, "a graph: gammaincc(k, x) * gamma(k)", "not implemented for k; "
            "-g * exp(-x) * x**(k - 1)", nin=2, grad_inputs=(1,), notes="PyTensor's upper incomplete gamma."),
    special("gammal", _gammal, "a graph: gammainc(k, x) * gamma(k)", "not implemented for k; "
            "g * exp(-x) * x**(k - 1)", nin=2, grad_inputs=(1,), notes="PyTensor's lower incomplete gamma."),
    special("chi2sf", _chi2sf, "a graph: gammaincc(k / 2, x / 2)", "g * d/dx gammaincc(k / 2, x / 2); not "
            "implemented for k", nin=2, grad_inputs=(0,), dtype_rule="gammaincc's of (k / 2, x / 2) (true "
            "divisions: integers -> float64)", notes="PyTensor's chi2sf(x, k), scipy.special.chdtrc(k, x)'s values."),
    special("gammaincinv", scipy_reference("gammaincinv"), perform("gammaincinv"), "not implemented for k; "
            "g * exp(x + gammaln(k)) / x**(k - 1) at x = gammaincinv(k, y)", nin=2, domains=((0.0, 5.0), None),
            grad_inputs=(1,), grad_domains=(None, (0.1, 0.9))),
    special("gammainccinv", scipy_reference("gammainccinv"), perform("gammainccinv"), "not implemented for k; "
            "-g * exp(x + gammaln(k)) / x**(k - 1) at x = gammainccinv(k, y)", nin=2, domains=((0.0, 5.0), None),
            grad_inputs=(1,), grad_domains=(None, (0.1, 0.9))),
    special("betainc", scipy_reference("betainc"), perform("betainc"), "not implemented for a, b; "
            "g * x**(a - 1) * (1 - x)**(b - 1) / beta(a, b)", nin=3, domains=((0.0, 5.0), (0.0, 5.0), None),
            grad_inputs=(2,), grad_domains=(None, None, (0.1, 0.9))),
    special("betaincinv", scipy_reference("betaincinv"), perform("betaincinv"), "not implemented for a, b; "
            "g * beta(a, b) / (x**(a - 1) * (1 - x)**(b - 1)) at x = betaincinv(a, b, y)", nin=3,
            domains=((0.0, 5.0), (0.0, 5.0), None), grad_inputs=(2,), grad_domains=(None, None, (0.1, 0.9))),
    special("hyp2f1", scipy_reference("hyp2f1"), perform("hyp2f1"), "not implemented for a, b, c; "
            "g * a * b / c * hyp2f1(a + 1, b + 1, c + 1, z)", nin=4, domains=((-3.0, 3.0), (-3.0, 3.0), (0.5, 3.0),
            None), grad_inputs=(3,), grad_domains=(None, None, None, (-0.9, 0.5))),
    special("owens_t", scipy_reference("owens_t"), perform("owens_t"),
            "-g * exp(-h**2 / 2) * erf(a h / sqrt(2)) / (2 sqrt(2 pi)), g * exp(-h**2 (1 + a**2) / 2) / (2 pi "
            "(1 + a**2))", nin=2, grad_domain=(-2.0, 2.0)),
    special("ndtri_exp", scipy_reference("ndtri_exp"), perform("ndtri_exp"),
            "g * sqrt(2 pi) * exp(y + ndtri_exp(y)**2 / 2)", grad_domain=(-3.0, -0.1)),
    special("jv", scipy_reference("jv"), perform("jv"), ORDER + "g * (jv(v - 1, x) - jv(v + 1, x)) / 2", nin=2,
            domains=((-3.0, 3.0), None), grad_inputs=(1,)),
    special("iv", scipy_reference("iv"), perform("iv"), ORDER + "g * (iv(v - 1, x) + iv(v + 1, x)) / 2", nin=2,
            domains=((-3.0, 3.0), None), grad_inputs=(1,)),
    special("ive", scipy_reference("ive"), perform("ive"),
            ORDER + "g * ((ive(v - 1, x) + ive(v + 1, x)) / 2 - sign(x) * ive(v, x))", nin=2,
            domains=((-3.0, 3.0), None), grad_inputs=(1,)),
    special("kv", scipy_reference("kv"), perform("kv"), ORDER + "-g * (kv(v - 1, x) + kv(v + 1, x)) / 2", nin=2,
            domains=((-3.0, 3.0), None), grad_inputs=(1,), aliases=("kn",)),
    special("kve", scipy_reference("kve"), perform("kve"),
            ORDER + "g * (kve(v, x) - (kve(v - 1, x) + kve(v + 1, x)) / 2)", nin=2, domains=((-3.0, 3.0), None),
            grad_inputs=(1,)),
    special("i0", scipy_reference("i0"), own_c("i0", (0, 7)), "g * i1(x)", ulp=(0, 7),
            grad_domain=(-3.0, 3.0)),
    special("i1", scipy_reference("i1"), own_c("i1", (1, 17)),
            "g * (i0(x) - i1(x) / x), g / 2 at 0", ulp=(1, 17), grad_domain=(-3.0, 3.0)),
    special("j0", scipy_reference("j0"), perform("j0", ROOTS), "-g * j1(x)", grad_domain=(-3.0, 3.0)),
    special("j1", scipy_reference("j1"), perform("j1", ROOTS), "g * (j0(x) - j1(x) / x), g / 2 at 0",
            grad_domain=(-3.0, 3.0)),
    special("logit", scipy_reference("logit"), c_in_double("logit", "float32, float64").replace(
            "in double", "scipy's formula, in the result's type"), "g / (x * (1 - x))", grad_domain=(0.1, 0.9)),
    special("log1mexp", formula_reference("log1mexp", _log1mexp),
            f"{TEMPLATE} `log1mexp` (float32, float64 results); float16: perform (the formula)",
            "-g / expm1(-x)", ulp=(4, 0), grad_domain=(-3.0, -0.1), simd=True,
            notes="PyTensor's: log1p(-exp(x)) below log(1/2), log(-expm1(x)) above, in the result's dtype."),
    special("xlogx", formula_reference("xlogx", _xlogx),
            f"{TEMPLATE} `xlogx` (float32, float64 results); float16: perform (the formula)", "g * (1 + log(x))",
            ulp=(4, 0), simd=True, notes="PyTensor's: x * log(x), and 0 where x is 0."),
    special("xlogy0", formula_reference("xlogy0", _xlogy0),
            f"{TEMPLATE} `xlogy0` (float32, float64 results); float16: perform (the formula)",
            "g * log(y), g * x / y", nin=2, ulp=(4, 0), aliases=("xlogy",), simd=True,
            notes="PyTensor's: x * log(y), and 0 wherever x is 0 (scipy.special.xlogy gives NaN for y NaN)."),
    special("xlog1py", formula_reference("xlog1py", _xlog1py),
            f"{TEMPLATE} `xlog1py` (float32, float64 results); float16: perform (the formula)",
            "g * log1p(y), g * x / (1 + y)", nin=2, simd=True,
            notes="PyTensor's: x * log1p(y), and 0 wherever x is 0 (scipy.special.xlog1py gives NaN for y NaN)."),
    special("factorial", _factorial, "a graph: gamma(n + 1), gamma's C", "g * gamma(n + 1) * psi(n + 1)",
            domains=((-3, 30),), notes="PyTensor's factorial: gamma(n + 1) elementwise (n + 1 wraps in n's integer "
                                        "dtype, as numpy's add)."),
]

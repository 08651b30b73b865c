"""Derivative rules of the special functions (merged into elemwise_grad.RULES): PyTensor's.

Each rule returns g * d(out)/d(inputs[i]), as in elemwise_grad. The order of polygamma has no gradient
(an integer); the shape parameter k of gammainc, gammaincc and their inverses, a and b of betainc and
betaincinv, a, b and c of hyp2f1 and the order v of the Bessel functions have none here (PyTensor sums
series for some): those terms are NullType variables, which grad raises on only where they are asked for.
"""

from __future__ import annotations

import math

from opkit.core.gradient_types import grad_not_implemented, grad_undefined
from opkit.core.tensor.elementwise import basic, elemwise_math, logic
from opkit.core.tensor.elementwise import elemwise_special as es

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


def _erf(inputs, out, i, g):
    return g * _TWO_OVER_SQRT_PI * basic.exp(-basic.sqr(inputs[0]))


def _erfc(inputs, out, i, g):
    return -(g * _TWO_OVER_SQRT_PI * basic.exp(-basic.sqr(inputs[0])))


def _erfcx(inputs, out, i, g):
    return g * (2 * inputs[0] * out - _TWO_OVER_SQRT_PI)


def _erfinv(inputs, out, i, g):
    return g * _SQRT_PI_OVER_TWO * basic.exp(basic.sqr(out))


def _erfcinv(inputs, out, i, g):
    return -(g * _SQRT_PI_OVER_TWO * basic.exp(basic.sqr(out)))


def _gammaln(inputs, out, i, g):
    return g * es.psi(inputs[0])


def _gamma(inputs, out, i, g):
    return g * out * es.psi(inputs[0])


def _psi(inputs, out, i, g):
    return g * es.tri_gamma(inputs[0])


def _tri_gamma(inputs, out, i, g):
    return g * es.polygamma(2, inputs[0])


def _polygamma(inputs, out, i, g):
    n, x = inputs
    if i == 0:
        return grad_undefined(es.polygamma, 0, n, "The order n of polygamma(n, x) is an integer.")
    return g * es.polygamma(n + 1, x)


def _beta(inputs, out, i, g):
    # d/da beta(a, b) = beta(a, b) (psi(a) - psi(a + b)); b likewise.
    a, b = inputs
    return g * out * (es.psi(inputs[i]) - es.psi(a + b))


def _betaln(inputs, out, i, g):
    a, b = inputs
    return g * (es.psi(inputs[i]) - es.psi(a + b))


def _poch(inputs, out, i, g):
    # poch(z, m) = gamma(z + m) / gamma(z): d/dz = poch (psi(z + m) - psi(z)), d/dm = poch psi(z + m).
    z, m = inputs
    return g * out * (es.psi(z + m) - es.psi(z)) if i == 0 else g * out * es.psi(z + m)


def _lower_gamma_density(k, x):
    # d/dx gammainc(k, x) = x^(k-1) e^(-x) / gamma(k), in logs as PyTensor writes it.
    return basic.exp(-x + (k - 1) * basic.log(x) - es.gammaln(k))


def _gammainc(inputs, out, i, g):
    k, x = inputs
    if i == 0:
        return grad_not_implemented(es.gammainc, 0, k, "opkit has no derivative of gammainc(k, x) in k.")
    return g * _lower_gamma_density(k, x)


def _gammaincc(inputs, out, i, g):
    k, x = inputs
    if i == 0:
        return grad_not_implemented(es.gammaincc, 0, k, "opkit has no derivative of gammaincc(k, x) in k.")
    return -(g * _lower_gamma_density(k, x))


def _order_undefined(name):
    def rule(inputs, out, i, g):
        return grad_not_implemented(getattr(es, name), 0, inputs[0], f"opkit has no derivative of {name}(v, x) "
                                    f"in its order v.")
    return rule


def _bessel(name, derivative):
    """The rule of a Bessel function of order v: not implemented in v; `derivative(v, x, out)` in x."""
    undefined = _order_undefined(name)

    def rule(inputs, out, i, g):
        v, x = inputs
        return undefined(inputs, out, i, g) if i == 0 else g * derivative(v, x, out)
    return rule


# d/dx of each (DLMF 10.6.1, 10.29.1; the scaled ones by the product rule), as PyTensor writes them.
_jv = _bessel("jv", lambda v, x, out: (es.jv(v - 1, x) - es.jv(v + 1, x)) / 2)
_iv = _bessel("iv", lambda v, x, out: (es.iv(v - 1, x) + es.iv(v + 1, x)) / 2)
_ive = _bessel("ive", lambda v, x, out: (es.ive(v - 1, x) + es.ive(v + 1, x)) / 2 - elemwise_math.sign(x) * out)
_kv = _bessel("kv", lambda v, x, out: -(es.kv(v - 1, x) + es.kv(v + 1, x)) / 2)
_kve = _bessel("kve", lambda v, x, out: out - (es.kve(v - 1, x) + es.kve(v + 1, x)) / 2)


def _not_implemented(name, i, x, what):
    return grad_not_implemented(getattr(es, name), i, x, f"opkit has no derivative of {name} in {what}.")


def _gammaincinv(inputs, out, i, g):
    # The inverse of y = gammainc(k, x): dx/dy = 1 / (x**(k - 1) e**-x / gamma(k)).
    k, y = inputs
    if i == 0:
        return _not_implemented("gammaincinv", 0, k, "k")
    return g * basic.exp(out - (k - 1) * basic.log(out) + es.gammaln(k))


def _gammainccinv(inputs, out, i, g):
    k, y = inputs
    if i == 0:
        return _not_implemented("gammainccinv", 0, k, "k")
    return -(g * basic.exp(out - (k - 1) * basic.log(out) + es.gammaln(k)))


def _log_beta_density(a, b, x):
    return (a - 1) * basic.log(x) + (b - 1) * elemwise_math.log1p(-x) - es.betaln(a, b)


def _betainc(inputs, out, i, g):
    a, b, x = inputs
    if i < 2:
        return _not_implemented("betainc", i, inputs[i], "a and b")
    return g * basic.exp(_log_beta_density(a, b, x))


def _betaincinv(inputs, out, i, g):
    a, b, y = inputs
    if i < 2:
        return _not_implemented("betaincinv", i, inputs[i], "a and b")
    return g * basic.exp(-_log_beta_density(a, b, out))


def _hyp2f1(inputs, out, i, g):
    a, b, c, z = inputs
    if i < 3:
        return _not_implemented("hyp2f1", i, inputs[i], "a, b and c")
    return g * a * b / c * es.hyp2f1(a + 1, b + 1, c + 1, z)


def _owens_t(inputs, out, i, g):
    h, a = inputs
    if i == 0:
        return -(g * basic.exp(-basic.sqr(h) / 2) * es.erf(a * h / math.sqrt(2.0)) / (2 * math.sqrt(2 * math.pi)))
    return g * basic.exp(-basic.sqr(h) * (1 + basic.sqr(a)) / 2) / (2 * math.pi * (1 + basic.sqr(a)))


def _ndtri_exp(inputs, out, i, g):
    # x = ndtri(exp(y)): dx/dy = exp(y) / pdf(x) = sqrt(2 pi) exp(y + x**2 / 2).
    return g * math.sqrt(2 * math.pi) * basic.exp(inputs[0] + basic.sqr(out) / 2)


def _i0(inputs, out, i, g):
    return g * es.i1(inputs[0])


def _i1(inputs, out, i, g):
    # i1'(x) = i0(x) - i1(x) / x, 1/2 at 0.
    x = inputs[0]
    return g * logic.switch(logic.eq(x, 0), 0.5, es.i0(x) - out / x)


def _j0(inputs, out, i, g):
    return -(g * es.j1(inputs[0]))


def _j1(inputs, out, i, g):
    # j1'(x) = j0(x) - j1(x) / x, 1/2 at 0.
    x = inputs[0]
    return g * logic.switch(logic.eq(x, 0), 0.5, es.j0(x) - out / x)


def _logit(inputs, out, i, g):
    x = inputs[0]
    return g / (x * (1 - x))


def _log1mexp(inputs, out, i, g):
    return -(g / elemwise_math.expm1(-inputs[0]))


def _xlogx(inputs, out, i, g):
    return g * (1 + basic.log(inputs[0]))


def _xlogy0(inputs, out, i, g):
    x, y = inputs
    return g * basic.log(y) if i == 0 else g * x / y


def _xlog1py(inputs, out, i, g):
    x, y = inputs
    return g * elemwise_math.log1p(y) if i == 0 else g * x / (1 + y)


RULES = {
    "erf": _erf, "erfc": _erfc, "erfcx": _erfcx, "erfinv": _erfinv, "erfcinv": _erfcinv, "gammaln": _gammaln,
    "gamma": _gamma, "psi": _psi, "tri_gamma": _tri_gamma, "polygamma": _polygamma, "beta": _beta, "betaln": _betaln,
    "poch": _poch, "gammainc": _gammainc, "gammaincc": _gammaincc, "gammaincinv": _gammaincinv,
    "gammainccinv": _gammainccinv, "betainc": _betainc, "betaincinv": _betaincinv, "hyp2f1": _hyp2f1,
    "owens_t": _owens_t, "ndtri_exp": _ndtri_exp, "jv": _jv, "iv": _iv, "ive": _ive, "kv": _kv, "kve": _kve,
    "i0": _i0, "i1": _i1, "j0": _j0, "j1": _j1, "logit": _logit, "log1mexp": _log1mexp, "xlogx": _xlogx,
    "xlogy0": _xlogy0, "xlog1py": _xlog1py,
}

"""The special functions, elementwise (scipy.special's values, numpy's float dtypes; see scalar_special): erf,
erfc, erfcx, erfinv, erfcinv, gammaln, gamma, psi (digamma), tri_gamma, polygamma, beta, betaln, poch,
gammainc, gammaincc, gammaincinv, gammainccinv, betainc, betaincinv, hyp2f1, owens_t, ndtri_exp, jv, iv, ive, kv,
kve, kn, i0, i1, j0, j1, logit, log1mexp, xlogx, xlogy0 (xlogy), xlog1py;
PyTensor's compositions factorial (gamma(n + 1)), gammau, gammal and chi2sf; expit and log1pexp are sigmoid's
and softplus's other names."""

from __future__ import annotations

from opkit.core.tensor.elementwise import elemwise_math
from opkit.core.tensor.elementwise.elemwise import Elemwise
from opkit.core.tensor.scalars import scalar_special

erf = Elemwise(scalar_special.erf)
erfc = Elemwise(scalar_special.erfc)
erfcx = Elemwise(scalar_special.erfcx)
erfinv = Elemwise(scalar_special.erfinv)
erfcinv = Elemwise(scalar_special.erfcinv)
gammaln = Elemwise(scalar_special.gammaln)
gamma = Elemwise(scalar_special.gamma)
psi = Elemwise(scalar_special.psi)
digamma = psi
tri_gamma = Elemwise(scalar_special.tri_gamma)
polygamma = Elemwise(scalar_special.polygamma)
beta = Elemwise(scalar_special.beta)
betaln = Elemwise(scalar_special.betaln)
poch = Elemwise(scalar_special.poch)
gammainc = Elemwise(scalar_special.gammainc)
gammaincinv = Elemwise(scalar_special.gammaincinv)
gammainccinv = Elemwise(scalar_special.gammainccinv)
betainc = Elemwise(scalar_special.betainc)
betaincinv = Elemwise(scalar_special.betaincinv)
hyp2f1 = Elemwise(scalar_special.hyp2f1)
owens_t = Elemwise(scalar_special.owens_t)
ndtri_exp = Elemwise(scalar_special.ndtri_exp)
gammaincc = Elemwise(scalar_special.gammaincc)
jv = Elemwise(scalar_special.jv)
iv = Elemwise(scalar_special.iv)
ive = Elemwise(scalar_special.ive)
kv = Elemwise(scalar_special.kv)
kve = Elemwise(scalar_special.kve)
kn = kv  # PyTensor's kn(n, x) is kv(n, x) (scipy.special.kn takes integer orders only)
i0 = Elemwise(scalar_special.i0)
i1 = Elemwise(scalar_special.i1)
j0 = Elemwise(scalar_special.j0)
j1 = Elemwise(scalar_special.j1)
logit = Elemwise(scalar_special.logit)
log1mexp = Elemwise(scalar_special.log1mexp)
xlogx = Elemwise(scalar_special.xlogx)
xlogy0 = Elemwise(scalar_special.xlogy0)
xlogy = xlogy0  # pytensor.tensor.special's name: 0 wherever x is 0
xlog1py = Elemwise(scalar_special.xlog1py)
expit = elemwise_math.sigmoid
log1pexp = elemwise_math.softplus


def factorial(n):
    """Return n! as PyTensor's pytensor.tensor.special.factorial computes it: gamma(n + 1), elementwise."""
    return gamma(n + 1)


def gammau(k, x):
    """Return the upper incomplete gamma function, gammaincc(k, x) * gamma(k) (PyTensor's gammau)."""
    return gammaincc(k, x) * gamma(k)


def gammal(k, x):
    """Return the lower incomplete gamma function, gammainc(k, x) * gamma(k) (PyTensor's gammal)."""
    return gammainc(k, x) * gamma(k)


def chi2sf(x, k):
    """Return the chi-squared survival function with `k` degrees of freedom, gammaincc(k / 2, x / 2) (PyTensor's,
    scipy.special.chdtrc(k, x))."""
    return gammaincc(k / 2, x / 2)

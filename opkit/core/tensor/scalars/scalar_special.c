/* The C of the special functions of scalar_special.py that libm lacks: psi (digamma), i0, i1, erfcx and erfinv,
   in double (a float32 result is the double rounded once, as scipy's float loops give). Written from the
   mathematics (the method of each is named where it is used); the Taylor coefficients of psi are its values
   psi^(k)(r) / k! at the roots, computed once in 60-digit arithmetic. scipy.special's values at the special
   points (NaN, infinities, poles, signed zeros) are kept; tests/tensor/test_special_c.py measures the ulps. */

#section support_code
#ifndef OPKIT_SPECIAL_SUPPORT
#define OPKIT_SPECIAL_SUPPORT
#include <cmath>

/* psi near its positive root r = 1.4616321449683622 (the double nearest it): Taylor series in h = x - r,
   psi(r + h) = sum_k psi^(k)(r) / k! h^k, used for r + h in [1, 2] (|h| <= 0.54: the terms fall by 0.37, the
   pole at 0 being 1.46 away); 43 terms reach 2^-60. */
static const double opkit_psi_posroot = 1.4616321449683622;
static const double opkit_psi_pos_taylor[43] = {
    -9.241265521729427e-17, 0.9676722454476212, -0.4427631689835922, 0.2584997609556511, -0.16394270544240658,
    0.10782405069126241, -0.07219956125645474, 0.04880428816414313, -0.033161126474847376, 0.022597648232218118,
    -0.01542476590494897, 0.010538791616612184, -0.007204534386356875, 0.004926781395729858, -0.0033698016554393312,
    0.00230512632673493, -0.001576936771430199, 0.0010788252019162978, -0.000738070938996006, 0.0005049532658346027,
    -0.0003454680251063082, 0.00023635601564027086, -0.00016170622091974827, 0.00011063372768747428,
    -7.569179582195078e-05, 5.17857579522209e-05, -3.543007094765967e-05, 2.4240066118601362e-05,
    -1.6584242271854165e-05, 1.1346384584663872e-05, -7.76281766846211e-06, 5.3110609208898746e-06,
    -3.6336507898010536e-06, 2.4860227331295433e-06, -1.7008538854332646e-06, 1.163667536354887e-06,
    -7.96142543124199e-07, 5.446941930669458e-07, -3.726616128343832e-07, 2.549626552021561e-07,
    -1.7443695117727793e-07, 1.1934394829830275e-07, -8.165115189488431e-08};
/* psi near its root between -1 and 0, r = -0.5040830082644554: Taylor series in h = x - r for |h| < 0.04 (the
   poles at 0 and -1 are 0.496 away), where the reflection formula below would cancel. */
static const double opkit_psi_negroot = -0.5040830082644554;
static const double opkit_psi_neg_taylor[31] = {
    7.289763902976895e-17, 8.939798558792134, -0.8093454625306499, 32.258572064915505, -2.7610116487908227,
    128.27342343090902, -14.706721735530332, 513.2704629562861, -75.37700066344615, 2055.5357119463315,
    -368.5783503832184, 8234.667099203069, -1743.3646088673593, 32997.785655255044, -8051.818155363481,
    132262.95480834588, -36529.945969485576, 530280.3912420176, -163451.7934270022, 2126602.372596875,
    -723318.8861804291, 8530604.878543982, -3172131.31557447, 34228316.69580112, -13807481.99726386,
    137373435.87411496, -59721085.41129418, 551481251.8585448, -256915093.7987531, 2214464568.0139103,
    -1100067148.9416316};

static inline double opkit_horner(const double *c, int n, double h)
{
    double s = c[n - 1];
    for (int k = n - 2; k >= 0; --k) s = s * h + c[k];
    return s;
}

/* psi(x) for x > 0. From 10 up the asymptotic series psi(x) = log x - 1/(2x) - sum_k B_2k / (2k x^2k) (Bernoulli
   numbers; seven terms, the first left out below 4.4e-17 at x = 10); below 10 the recurrence psi(x) = psi(x - 1)
   + 1/(x - 1) down to [1, 2) (every term positive: no cancellation) and the Taylor series at the root there; below
   1, psi(x) = psi(x + 1) - 1/x with h = x + (1 - r) (1 - r is exact). */
static inline double opkit_psi_positive(double x, double y = 0)
{
    /* y: a term the result adds (the reflection's), summed first, with the recurrence's terms, in their order */
    if (x >= 10) {
        const double z = 1 / (x * x);
        const double s = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132
                         - z * (691.0 / 32760 - z * (1.0 / 12)))))));
        return y + (std::log(x) - 0.5 / x - s);
    }
    if (x < 1) return opkit_horner(opkit_psi_pos_taylor, 43, x + (1 - opkit_psi_posroot)) + (y - 1 / x);
    while (x >= 2) {  /* exact: x - 1 is a multiple of x's ulp, below x */
        x -= 1;
        y += 1 / x;
    }
    return y + opkit_horner(opkit_psi_pos_taylor, 43, x - opkit_psi_posroot);
}

/* pi / tan(pi r), r reduced to [-1/2, 1/2] first (exactly: tan has period pi), accurate near r = +-1/2 too: there
   it is pi tan(pi (1/2 - |r|)) with the sign of r (1/2 - |r| is exact), where pi r's rounding would cost many ulps
   of a small result. */
static inline double opkit_pi_cotpi(double r)
{
    const double pi = 3.141592653589793;
    r -= std::nearbyint(r);
    const double a = std::fabs(r);
    if (a <= 0.25) return pi / std::tan(pi * r);
    return std::copysign(pi * std::tan(pi * (0.5 - a)), r);
}

/* scipy's psi: -inf at +0, +inf at -0, NaN at the negative integers and -inf, inf at inf. Negative x: the
   reflection formula psi(x) = psi(1 - x) - pi / tan(pi x). Its tan takes x's fraction r = x - trunc(x) (tan has
   period pi), as scipy's does: near a pole below -1 that is scipy's value, not the nearest. Between -0.8 and -0.2
   (where scipy sums a series at the root) the cotangent is the accurate one above and, within 0.1 of the root,
   where the two terms cancel, the Taylor series at the root replaces the formula; between -1 and 0, psi(1 - x)
   takes h = (1 - r) - x, not the rounded 1 - x. */
static inline double opkit_psi(double x)
{
    if (x > 0) return opkit_psi_positive(x);
    if (x == 0) return std::copysign(INFINITY, -x);
    if (!(x > -INFINITY) || x == std::trunc(x)) return NAN;  /* NaN, -inf, a pole */
    const double h = x - opkit_psi_negroot;
    if (std::fabs(h) < 0.1) return opkit_horner(opkit_psi_neg_taylor, 31, h);
    const double r = x - std::trunc(x);
    const double cot = (std::fabs(h) < 0.3) ? opkit_pi_cotpi(r) : 3.141592653589793 / std::tan(3.141592653589793 * r);
    if (x > -1) return opkit_horner(opkit_psi_pos_taylor, 43, (1 - opkit_psi_posroot) - x) - cot;
    return opkit_psi_positive(1 - x, -cot);
}

/* The modified Bessel functions of the first kind of orders 0 and 1 (scipy's i0, i1). Below |x| = 20 the power
   series I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k + n)!), every term positive; q = x^2 / 4 is rounded once, and
   the sum is corrected to first order for that rounding (dS/dq = sum_k k t_k / q) so that the k-th power does not
   multiply it. From 20 up the asymptotic expansion I_n(x) ~ e^x / sqrt(2 pi x) sum_k (-1)^k a_k(n) / x^k, a_k(n) =
   prod_{j<=k} (4n^2 - (2j - 1)^2) / (8 j), summed until a term is below 2^-56 (at most 26 terms: from x = 20 the
   smallest term is below that). e^x is computed whole, as scipy's does, so the result overflows to inf where
   scipy's does (x > 709.78); I_n(+-inf) is NaN, as scipy gives. */
static inline double opkit_bessel_i_series(double x, int n)
{
    const double hi = x * x;
    const double lo = std::fma(x, x, -hi);
    const double q = 0.25 * hi;
    double t[64];  /* the terms, summed from the smallest: their roundings stay below the largest's */
    double s = 1;
    int m = 1;
    t[0] = 1;
    for (; m < 64; ++m) {
        t[m] = t[m - 1] * (q / ((double)m * (double)(m + n)));
        s += t[m];
        if (t[m] < s * 1e-17) break;
    }
    if (m == 64) m = 63;
    double sum = 0, ksum = 0;
    for (int k = m; k >= 0; --k) {
        sum += t[k];
        ksum += k * t[k];
    }
    return (hi > 0) ? sum + ksum * (lo / hi) : sum;
}

static inline double opkit_bessel_i_asymptotic(double x, int n)
{
    const double mu = 4.0 * n * n;
    double t = 1, tail = 0;  /* the terms after the first: 1 + tail is rounded once */
    for (int k = 1; k < 40; ++k) {
        const double odd = 2.0 * k - 1;
        t *= -(mu - odd * odd) / (8.0 * k * x);
        tail += t;
        if (std::fabs(t) < 1.4e-17) break;
    }
    return std::exp(x) * (1 + tail) * (0.3989422804014327 / std::sqrt(x));
}

static inline double opkit_i0(double x)
{
    const double a = std::fabs(x);
    if (a < 20) return opkit_bessel_i_series(a, 0);
    if (!(a < INFINITY)) return NAN;
    return opkit_bessel_i_asymptotic(a, 0);
}

static inline double opkit_i1(double x)
{
    const double a = std::fabs(x);
    if (x == 0) return 0;  /* +0 for -0 too, as scipy gives */
    if (a < 20) return (0.5 * x) * opkit_bessel_i_series(a, 1);
    if (!(a < INFINITY)) return NAN;
    return std::copysign(opkit_bessel_i_asymptotic(a, 1), x);
}

/* erfcx(x) = exp(x^2) erfc(x). Below 5: libm's erfc times exp(x^2); from 0 up with x^2 split into hi + lo (fma)
   and exp(hi + lo) = exp(hi) (1 + lo), since the rounding of x^2 would be multiplied by x^2 in exp's relative
   error; below 0 with x^2 rounded, as scipy's exp(x^2) (there the condition number of erfcx is 2 x^2 anyway);
   below -26.7 it overflows (2 exp(x^2) > DBL_MAX). From 5 up the continued fraction of Laplace,
   erfcx(x) = (1 / sqrt(pi)) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))), evaluated from depth 20 backwards
   (converged to rounding from x = 4), fewer levels as x grows; erfcx(inf) = 0. */
static inline double opkit_erfcx(double x)
{
    if (x < 5) {
        if (x < -26.7) return INFINITY;
        const double hi = x * x;
        if (x < 0) return std::exp(hi) * std::erfc(x);
        const double lo = std::fma(x, x, -hi);
        return std::exp(hi) * (1 + lo) * std::erfc(x);
    }
    if (x != x) return x;
    /* the depth that converges to rounding, by x (measured against scipy: one or two levels more than needed) */
    const int depth = (x < 7) ? 20 : (x < 10) ? 14 : (x < 15) ? 10 : (x < 30) ? 8 : (x < 100) ? 6 : (x < 1e4) ? 5 : 3;
    double t = x;
    for (int n = depth; n >= 1; --n) t = x + (0.5 * n) / t;
    return 0.5641895835477563 / t;
}

/* erfinv(y): +-inf at +-1, NaN beyond. Tiny |y|: the series sqrt(pi)/2 (y + pi/12 y^3) (the next term is below
   2^-56 of the first), with sqrt(pi)/2 in two parts. Elsewhere a first value from polynomials in Giles's variable
   w = -log(1 - y^2) ("Approximating the erfinv function", 2010): erfinv(y) / y as a polynomial in w - 2.5 below
   w = 5 (|y| < 0.9966) and in sqrt(w) - 3 above, least-squares fits made for opkit against scipy's erfinv (2e-8
   and 1.4e-7 relative), refined by one Halley step on f(x) = erf(x) - |y|: u = f / f', x -= u / (1 + x u)
   (f'' = -2x f'), whose cubic convergence takes those to rounding. Above |y| = 1/2, f is (1 - |y|) - erfc(x), whose
   parts keep their digits near |y| = 1; 1 - y^2 is (1 - |y|)(1 + |y|) there. */
static const double opkit_erfinv_central[10] = {
    1.5014093570596534, 0.24664027097883157, -0.004177373293240751, -0.0012527054921776229, 0.0002183318874109698,
    -4.986457274746439e-06, -3.459050319258279e-06, 4.715314704638462e-07, 2.2906060337193188e-08,
    -9.201237077549117e-09};
static const double opkit_erfinv_tail[13] = {
    2.8329768382418945, 1.0016760112483223, 0.009443565641040062, -0.007652523047296256, 0.005704328918519893,
    -0.0035385774951567886, 0.0014195831781449034, -0.00013435519254571511, -0.00021467714674043605,
    0.00013868414417701695, -4.0814483565205374e-05, 6.18888159967243e-06, -3.8987206613996437e-07};

static inline double opkit_erfinv(double y)
{
    const double a = std::fabs(y);
    if (!(a < 1)) return (a == 1) ? std::copysign(INFINITY, y) : NAN;
    if (y == 0) return 0;  /* +0 for -0 too, as scipy gives */
    if (a < 1e-8) return 0.886226925452758 * y + (-3.8332932499128993e-17 * y + 0.2320136665346545 * (y * y * y));
    const double w = -((a < 0.5) ? std::log1p(-a * a) : std::log((1 - a) * (1 + a)));
    double x = a * ((w < 5) ? opkit_horner(opkit_erfinv_central, 10, w - 2.5)
                            : opkit_horner(opkit_erfinv_tail, 13, std::sqrt(w) - 3));
    const double f = (a < 0.5) ? std::erf(x) - a : (1 - a) - std::erfc(x);
    const double u = f / (1.1283791670955126 * std::exp(-x * x));
    x -= u / (1 + x * u);
    return std::copysign(x, y);
}
#endif

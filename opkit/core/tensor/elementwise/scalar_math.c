/* The helpers of the scalar math functions: numpy's clip, floor_divide and remainder (opkit/core/tensor/scalars/
   scalar_math.py), the float predicates, logaddexp, deg2rad and rad2deg (scalar_elementary.py), lgamma, logit,
   log1mexp, xlogy0 and xlog1py (scalar_special.py). */

#section support_code
#ifndef OPKIT_MATH_SUPPORT
#define OPKIT_MATH_SUPPORT
/* numpy's clip for floats with bounds that vary along the loop: max keeps a NaN x, else picks lo unless x > lo;
   min likewise. */
template <typename T> static inline T opkit_fclip(T x, T lo, T hi)
{
    T m = (x != x) ? x : ((x > lo) ? x : lo);
    return (m != m) ? m : ((m < hi) ? m : hi);
}
/* numpy's clip for floats when both bounds are one number for the whole loop (its constant-bounds loop):
   a NaN bound fills the output (lo's first), else x moves only when strictly outside [lo, hi], so a tie
   keeps x (clip(-0.0, 0.0, 1.0) is -0.0, where the loop above gives lo). */
template <typename T> static inline T opkit_fclip_uniform(T x, T lo, T hi)
{
    if (lo != lo) return lo;
    if (hi != hi) return hi;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    return x;
}
template <typename T> static inline T opkit_iclip(T x, T lo, T hi)
{
    T m = (x > lo) ? x : lo;
    return (m < hi) ? m : hi;
}
/* numpy's floor_divide and remainder (int_div and mod, scalar_ops.py). Integers: division by zero gives 0
   and MIN // -1 wraps to MIN (C's `/` and `%` would trap there); the quotient is floored and the remainder
   takes the divisor's sign. Floats: npy_divmod of npy_math, step for step (fmod, then the Python
   convention, a signed zero, the quotient snapped to an integer); a zero divisor gives a / b and fmod. */
#include <cmath>
#include <type_traits>
template <typename T> static inline T opkit_ifloordiv(T n, T d)
{
    if (d == 0) return 0;
    if constexpr (std::is_signed<T>::value) {
        if (d == (T)-1) return (T)((npy_uint64)0 - (npy_uint64)n);
        T r = (T)(n / d);
        if (((n > 0) != (d > 0)) && (T)(r * d) != n) --r;
        return r;
    } else {
        return (T)(n / d);
    }
}
template <typename T> static inline T opkit_imod(T a, T b)
{
    if (b == 0) return 0;
    if constexpr (std::is_signed<T>::value) {
        if (b == (T)-1) return 0;
        T rem = (T)(a % b);
        return ((a > 0) == (b > 0) || rem == 0) ? rem : (T)(rem + b);
    } else {
        return (T)(a % b);
    }
}
template <typename T> static inline T opkit_fdivmod(T a, T b, T* modulus)
{
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod) {
        if (std::isless(b, (T)0) != std::isless(mod, (T)0)) {
            mod += b;
            div -= (T)1;
        }
    } else {
        mod = std::copysign((T)0, b);
    }
    T floordiv;
    if (div) {
        floordiv = std::floor(div);
        if (std::isgreater(div - floordiv, (T)0.5)) floordiv += (T)1;
    } else {
        floordiv = std::copysign((T)0, a / b);
    }
    *modulus = mod;
    return floordiv;
}
template <typename T> static inline T opkit_ffloordiv(T a, T b)
{
    if (!b) return a / b;
    T mod;
    return opkit_fdivmod(a, b, &mod);
}
template <typename T> static inline T opkit_fmod(T a, T b)
{
    if (!b) return std::fmod(a, b);
    T mod;
    opkit_fdivmod(a, b, &mod);
    return mod;
}
/* isnan, isinf, isfinite, isposinf, isneginf of any real operand: an integer or bool is finite (numpy's integer
   loops). */
template <typename T> static inline bool opkit_isnan(T x)
{
    if constexpr (std::is_floating_point<T>::value) return std::isnan(x);
    else return false;
}
template <typename T> static inline bool opkit_isinf(T x)
{
    if constexpr (std::is_floating_point<T>::value) return std::isinf(x);
    else return false;
}
template <typename T> static inline bool opkit_isfinite(T x)
{
    if constexpr (std::is_floating_point<T>::value) return std::isfinite(x);
    else return true;
}
template <typename T> static inline bool opkit_isposinf(T x)
{
    if constexpr (std::is_floating_point<T>::value) return std::isinf(x) && !std::signbit(x);
    else return false;
}
template <typename T> static inline bool opkit_isneginf(T x)
{
    if constexpr (std::is_floating_point<T>::value) return std::isinf(x) && std::signbit(x);
    else return false;
}
/* npy_logaddexp of npy_math, step for step: equal operands (infinities of one sign included) give x + log 2;
   otherwise the larger plus log1p(exp(-|x - y|)), and a NaN difference is the result. */
template <typename T> static inline T opkit_logaddexp(T x, T y)
{
    const T loge2 = std::is_same<T, float>::value ? (T)0.693147180559945309417232121458176568f
                                                  : (T)0.693147180559945309417232121458176568;
    if (x == y) return x + loge2;
    const T tmp = x - y;
    if (tmp > 0) return x + std::log1p(std::exp(-tmp));
    if (tmp <= 0) return y + std::log1p(std::exp(tmp));
    return tmp;
}
/* npy_deg2rad and npy_rad2deg: x times pi/180 (180/pi) computed in x's own type, as numpy's constants are. */
template <typename T> static inline T opkit_deg2rad(T x)
{
    if constexpr (std::is_same<T, float>::value) return x * (3.141592653589793238462643383279502884f / 180.0f);
    else return x * (3.141592653589793238462643383279502884 / 180.0);
}
template <typename T> static inline T opkit_rad2deg(T x)
{
    if constexpr (std::is_same<T, float>::value) return x * (180.0f / 3.141592653589793238462643383279502884f);
    else return x * (180.0 / 3.141592653589793238462643383279502884);
}
/* scipy's gammaln: log|gamma(x)|, with gammaln(-inf) = -inf. lgamma_r, not lgamma: lgamma writes the global
   signgam, a data race in the threaded loops. */
static inline double opkit_lgamma(double x)
{
    if (std::isinf(x)) return x;
#if defined(__GLIBC__) || defined(__APPLE__)
    int sign;
    return lgamma_r(x, &sign);
#else
    return std::lgamma(x);
#endif
}
/* scipy's logit (xsf): log(x / (1 - x)) away from 1/2, log1p(s) - log1p(-s) with s = 2 (x - 1/2) near it. */
template <typename T> static inline T opkit_logit(T x)
{
    if (x < 0.3 || x > 0.65) return std::log(x / (1 - x));
    const T s = 2 * (x - 0.5);
    return std::log1p(s) - std::log1p(-s);
}
/* PyTensor's log1mexp, log(1 - exp(x)): log1p(-exp(x)) below log(1/2), log(-expm1(x)) above. */
template <typename T> static inline T opkit_log1mexp(T x)
{
    return (x < (T)-0.6931471805599453) ? std::log1p(-std::exp(x)) : std::log(-std::expm1(x));
}
/* PyTensor's xlogy0 (and xlogx, x = y): x log(y), and 0 wherever x is 0. */
template <typename T> static inline T opkit_xlogy0(T x, T y)
{
    return (x == 0) ? (T)0 : x * std::log(y);
}
template <typename T> static inline T opkit_xlog1py(T x, T y)
{
    return (x == 0) ? (T)0 : x * std::log1p(y);
}
#endif

/* The helpers of the scalar math functions (opkit/core/tensor/scalars/scalar_math.py): numpy's clip, floor_divide and remainder. */

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
#endif

/* The helpers of the comparisons (opkit/core/tensor/scalars/scalar_logic.py): exact mixed signed/unsigned. */

#section support_code
#ifndef OPKIT_LOGIC_SUPPORT
#define OPKIT_LOGIC_SUPPORT
#include <type_traits>
/* a < b exactly, also for one signed and one unsigned integer (numpy's mixed int64/uint64 loop):
   C's usual conversions would turn -1 into 2**64 - 1. */
template <typename A, typename B> static inline bool opkit_lt(A a, B b)
{
    if constexpr (std::is_integral<A>::value && std::is_integral<B>::value
                  && std::is_signed<A>::value != std::is_signed<B>::value) {
        if constexpr (std::is_signed<A>::value) return a < 0 || (typename std::make_unsigned<A>::type)a < b;
        else return b >= 0 && a < (typename std::make_unsigned<B>::type)b;
    } else {
        return a < b;
    }
}
template <typename A, typename B> static inline bool opkit_eq(A a, B b)
{
    if constexpr (std::is_integral<A>::value && std::is_integral<B>::value
                  && std::is_signed<A>::value != std::is_signed<B>::value) {
        return !opkit_lt(a, b) && !opkit_lt(b, a);
    } else {
        return a == b;
    }
}
/* NaN compares false except with !=, as in numpy: spelled with < and == only. */
template <typename A, typename B> static inline bool opkit_gt(A a, B b) { return opkit_lt(b, a); }
template <typename A, typename B> static inline bool opkit_le(A a, B b) { return opkit_lt(a, b) || opkit_eq(a, b); }
template <typename A, typename B> static inline bool opkit_ge(A a, B b) { return opkit_lt(b, a) || opkit_eq(a, b); }
template <typename A, typename B> static inline bool opkit_neq(A a, B b) { return !opkit_eq(a, b); }
#endif

/* The helpers of the scalar math functions (opkit/core/tensor/scalars/scalar_math.py): numpy's clip. */

#section support_code
#ifndef OPKIT_MATH_SUPPORT
#define OPKIT_MATH_SUPPORT
/* numpy's clip for floats: max keeps a NaN x, else picks lo unless x > lo; min likewise. */
template <typename T> static inline T opkit_fclip(T x, T lo, T hi)
{
    T m = (x != x) ? x : ((x > lo) ? x : lo);
    return (m != m) ? m : ((m < hi) ? m : hi);
}
template <typename T> static inline T opkit_iclip(T x, T lo, T hi)
{
    T m = (x > lo) ? x : lo;
    return (m < hi) ? m : hi;
}
#endif

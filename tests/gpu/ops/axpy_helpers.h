/* Included by axpy.c's kernels: part of their identity (its bytes). */
template <typename T, typename U>
__device__ inline T axpy_scale(T a, U x) { return a * (T)x; }

/* The fixed C of every elementwise node (opkit/core/tensor/elementwise/elemwise.py) and of the reductions that
   compute elementwise programs: broadcast (its error: broadcast.c), the output, the loops, numpy's power. The code of each node
   comes from opkit/templates/elemwise.c.j2. */

#section support_code
#ifndef OPKIT_ELEMWISE_SUPPORT
#define OPKIT_ELEMWISE_SUPPORT
/* Set broadcast.c's ValueError for the shapes of `nin` arrays that clash on `axis` of their nd-d broadcast. */
static void opkit_broadcast_error(int nd, int nin, PyArrayObject** ins, int axis, const char* what)
{
    int total = 0;
    for (int k = 0; k < nin; ++k) total += PyArray_NDIM(ins[k]);
    int* ndims = (int*)malloc(sizeof(int) * (nin + 1));
    npy_int64* dims = (npy_int64*)malloc(sizeof(npy_int64) * (total + 1));
    if (ndims && dims) {
        for (int k = 0, start = 0; k < nin; start += ndims[k], ++k) {
            ndims[k] = PyArray_NDIM(ins[k]);
            for (int d = 0; d < ndims[k]; ++d) dims[start + d] = PyArray_DIMS(ins[k])[d];
        }
        opkit_broadcast_message(nd, nin, ndims, dims, axis, what);
    } else {
        PyErr_NoMemory();
    }
    free(ndims);
    free(dims);
}

/* Broadcast the shapes of `nin` arrays (aligned right) into dims[0..nd), as numpy does. */
static int opkit_broadcast(int nd, int nin, PyArrayObject** ins, npy_intp* dims, const char* what)
{
    for (int d = 0; d < nd; ++d) dims[d] = 1;
    for (int k = 0; k < nin; ++k) {
        int offset = nd - PyArray_NDIM(ins[k]);
        for (int d = 0; d < PyArray_NDIM(ins[k]); ++d) {
            npy_intp n = PyArray_DIMS(ins[k])[d];
            if (n == 1) continue;
            if (dims[offset + d] != 1 && dims[offset + d] != n) {
                opkit_broadcast_error(nd, nin, ins, offset + d, what);
                return -1;
            }
            dims[offset + d] = n;
        }
    }
    return 0;
}

/* Keep *out if it is a C-contiguous array of the right shape and dtype, else allocate one. */
static int opkit_prepare_output(PyArrayObject** out, int nd, const npy_intp* dims, int typenum)
{
    PyArrayObject* o = *out;
    if (o && PyArray_NDIM(o) == nd && PyArray_TYPE(o) == typenum && PyArray_IS_C_CONTIGUOUS(o)
            && PyArray_ISWRITEABLE(o)) {
        int same = 1;
        for (int d = 0; d < nd; ++d) same &= PyArray_DIMS(o)[d] == dims[d];
        if (same) return 0;
    }
    Py_XDECREF(o);
    *out = (PyArrayObject*)PyArray_EMPTY(nd, (npy_intp*)dims, typenum, 0);
    return *out ? 0 : -1;
}

/* Byte strides of `a` seen with nd dimensions: 0 on broadcast and missing axes. */
static void opkit_broadcast_strides(PyArrayObject* a, int nd, npy_intp* strides)
{
    int offset = nd - PyArray_NDIM(a);
    for (int d = 0; d < nd; ++d) {
        int ad = d - offset;
        strides[d] = (ad < 0 || PyArray_DIMS(a)[ad] == 1) ? 0 : PyArray_STRIDES(a)[ad];
    }
}

/* True if `a` is C-contiguous with exactly the output's shape. */
static int opkit_full_contiguous(PyArrayObject* a, int nd, const npy_intp* dims)
{
    if (PyArray_NDIM(a) != nd || !PyArray_IS_C_CONTIGUOUS(a)) return 0;
    for (int d = 0; d < nd; ++d) if (PyArray_DIMS(a)[d] != dims[d]) return 0;
    return 1;
}

#ifndef OPKIT_THREADS_FOR
#define OPKIT_THREADS_FOR(n) 1
#endif

/* Run body(begin, end) over [0, n): on one thread, or on OPKIT_THREADS_FOR(n) threads, one
   chunk each (whole blocks of 64 elements when longer, so no two threads write one cache line). Every
   element is computed by the same code either way, so the results are the same bits. */
template <typename Body>
static inline void opkit_parallel_range(npy_intp n, Body body)
{
    const int nt = OPKIT_THREADS_FOR(n);
#ifdef _OPENMP
    if (nt > 1) {
        npy_intp chunk = (n + nt - 1) / nt;
        if (chunk > 64) chunk = (chunk + 63) & ~(npy_intp)63;
        #pragma omp parallel for num_threads(nt) schedule(static, 1)
        for (int t = 0; t < nt; ++t) {
            const npy_intp begin = t * chunk, end = begin + chunk < n ? begin + chunk : n;
            if (begin < end) body(begin, end);
        }
        return;
    }
#endif
    (void)nt;
    body((npy_intp)0, n);
}

/* Call body(ptrs) for the elements [begin, end) of an nd iteration in C order; ptrs advance by
   their strides. */
template <int NARGS, typename Body>
static void opkit_nd_loop_range(int nd, const npy_intp* dims, char** base, npy_intp (*strides)[NPY_MAXDIMS],
                                npy_intp begin, npy_intp end, Body body)
{
    if (begin >= end) return;
    if (nd == 0) { body(base); return; }
    npy_intp index[NPY_MAXDIMS];
    npy_intp rest = begin;
    for (int d = nd - 1; d >= 0; --d) { index[d] = rest % dims[d]; rest /= dims[d]; }
    char* ptrs[NARGS];
    const int inner = nd - 1;
    for (npy_intp todo = end - begin; todo > 0;) {
        for (int k = 0; k < NARGS; ++k) {
            char* p = base[k];
            for (int d = 0; d < nd; ++d) p += index[d] * strides[k][d];
            ptrs[k] = p;
        }
        npy_intp run = dims[inner] - index[inner];
        if (run > todo) run = todo;
        for (npy_intp i = 0; i < run; ++i) {
            body(ptrs);
            for (int k = 0; k < NARGS; ++k) ptrs[k] += strides[k][inner];
        }
        todo -= run;
        index[inner] = 0;
        int d = inner - 1;
        while (d >= 0 && ++index[d] == dims[d]) index[d--] = 0;
    }
}

/* Call body(ptrs) for every element of an nd iteration; ptrs advance by their strides. */
template <int NARGS, typename Body>
static void opkit_nd_loop(int nd, const npy_intp* dims, char** base, npy_intp (*strides)[NPY_MAXDIMS], Body body)
{
    npy_intp total = 1;
    for (int d = 0; d < nd; ++d) total *= dims[d];
    opkit_nd_loop_range<NARGS>(nd, dims, base, strides, 0, total, body);
}

/* numpy's float power for an exponent that is one number for the whole loop (FLOAT_power and
   DOUBLE_power's POWER_FAST_PATH): those five exponents skip pow. */
template <typename T> static inline T opkit_pow_uniform(T x, T y)
{
    if (y == (T)-1) return (T)1 / x;
    if (y == (T)0) return (T)1;
    if (y == (T)0.5) return std::sqrt(x);
    if (y == (T)1) return x;
    if (y == (T)2) return x * x;
    return std::pow(x, y);
}

/* numpy's integer power: wraps modulo 2**bits (computed unsigned: no undefined
   behaviour); a negative exponent sets `bad` (numpy raises ValueError). */
template <typename T> static inline T opkit_ipow(T base, T exponent, int& bad)
{
    if (exponent < 0) { bad = 1; return 0; }
    npy_uint64 result = 1, b = (npy_uint64)base;
    while (exponent) { if (exponent & 1) result *= b; b *= b; exponent >>= 1; }
    return (T)result;
}
#endif

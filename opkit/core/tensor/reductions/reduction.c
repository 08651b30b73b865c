/* The fixed C of every reduction module (opkit/core/tensor/reductions/reduction.py): the blocked pairwise loop and
   its combining tree. Each node's code comes from reduction_c.py. */

#section support_code
#ifndef OPKIT_REDUCE_SUPPORT
#define OPKIT_REDUCE_SUPPORT
#include <cmath>
#include <cstdint>
#include <type_traits>
/* Threads for a loop over n elements; the generated module defines it (1 below a threshold). */
#ifndef OPKIT_THREADS_FOR
#define OPKIT_THREADS_FOR(n) 1
#endif
#define OPKIT_REDUCE_LEAF 128     /* elements per pairwise leaf, as numpy's PW_BLOCKSIZE */
#define OPKIT_REDUCE_MAXMIN_LEAF 8192  /* elements per leaf of max and min (exact in any order: long leaves, little overhead) */
#define OPKIT_REDUCE_CHUNK 65536  /* elements per unit of parallel work: fixed, whatever the thread count */

/* ---- A float max or min over contiguous values ----
   One step of a fast max (min): x86's max, a > b ? a : b (a NaN b replaces a), unless a is already NaN.
   It is the combine below but where a and b are zeros of opposite signs: callers fix a zero result's
   sign with opkit_reduce_zero_sign. */
template <typename T, bool IS_MAX>
static inline T opkit_reduce_maxmin_step(T a, T b)
{
    return IS_MAX ? ((a > b || a != a) ? a : b) : ((a < b || a != a) ? a : b);
}

/* The node's combine for max: a NaN on either side, else the larger value, +0 above -0 (a tie of zeros
   is a + b; for min, -(-a - b)). Exact, commutative and associative: any grouping gives the same value,
   and the same bits but for a NaN's payload (the node's finish makes any NaN the quiet NaN). */
template <typename T, bool IS_MAX>
static inline T opkit_reduce_maxmin_combine(T a, T b)
{
    const T tie = IS_MAX ? a + b : -(-a - b);  /* +0 above -0 */
    return (a == b && a == 0) ? tie : opkit_reduce_maxmin_step<T, IS_MAX>(a, b);
}

/* The sign the combine gives a zero max (min) of p[0], p[stride], ... p[(n - 1) * stride]: +0 if any of
   them is +0 (max), -0 if any is -0 (min), else the other zero. */
template <typename T, bool IS_MAX>
static T opkit_reduce_zero_sign(const T* p, npy_intp n, npy_intp stride)
{
    if constexpr (!std::is_floating_point<T>::value) return (T)0;  /* an integer zero has no sign */
    const T wanted = IS_MAX ? (T)0.0 : (T)-0.0;
    for (npy_intp k = 0; k < n; ++k)
        if (p[k * stride] == 0 && (bool)std::signbit(p[k * stride]) == (bool)std::signbit(wanted)) return wanted;
    return -wanted;
}

/* The max (IS_MAX) or min of p[0 .. n), n > 0, as opkit_reduce_maxmin_combine folds them: NaN if any value
   is NaN, else the largest (smallest) value, +0 above -0 (-0 below +0); for an integer T (no NaN, no signed
   zero) just the largest (smallest). It vectorizes at every x86-64 level
   (GNU vector extensions and builtins, no intrinsics header to parse): vectors of the widest registers the
   module targets (64 bytes with AVX-512, 32 with AVX, else SSE2's 16), OPKIT_REDUCE_MAXMIN_VECTORS
   independent accumulators, each step a > x ? a : x (a < x ? a : x), which is x86's max (min) instruction,
   and NaN flags OR-accumulated apart, so no step waits on a blend: one unordered compare per two accumulators
   after each step (opkit_reduce_unordered). A NaN x always enters its accumulator (a > NaN is false), so the
   accumulators, already in registers, show every NaN read; comparing them instead of the values read saves
   the loads again (0.86x numpy's time against 1.05x at 10^7 float64, AVX2). Whatever a NaN did to the
   accumulators afterwards, a set flag makes the result NaN.
   The tail is one more vector, the last values (some read twice: harmless for max and min). A step leaves
   a tie of zeros to x, so a result of zero (rare) takes its sign from a second look at the values: +0 if any
   is +0 (max), -0 if any is -0 (min). Elsewhere (another compiler) 8 lanes of the combine. */
#if defined(__GNUC__) && !defined(__clang__)
/* The NaN flags of two vectors x and y of T: x86's unordered compare, one instruction for both, through GCC's
   builtins (no intrinsics header): a bit per lane with AVX-512 (an integer), else all-ones lanes where x or y
   is NaN (a vector like x != x). Another target: (x != x) | (y != y). */
template <typename T, typename V>
static inline auto opkit_reduce_unordered(V x, V y)
{
#if defined(__AVX512F__)
    typedef double v8df __attribute__((vector_size(64)));
    typedef float v16sf __attribute__((vector_size(64)));
    if constexpr (sizeof(T) == 8) return (unsigned)__builtin_ia32_cmppd512_mask((v8df)x, (v8df)y, 3, (unsigned char)-1, 4);
    else return (unsigned)__builtin_ia32_cmpps512_mask((v16sf)x, (v16sf)y, 3, (unsigned short)-1, 4);
#elif defined(__AVX__)
    typedef double v4df __attribute__((vector_size(32)));
    typedef float v8sf __attribute__((vector_size(32)));
    typedef decltype(x != x) Mask;
    if constexpr (sizeof(T) == 8) return (Mask)__builtin_ia32_cmppd256((v4df)x, (v4df)y, 3);
    else return (Mask)__builtin_ia32_cmpps256((v8sf)x, (v8sf)y, 3);
#elif defined(__SSE2__)
    typedef double v2df __attribute__((vector_size(16)));
    typedef float v4sf __attribute__((vector_size(16)));
    typedef decltype(x != x) Mask;
    if constexpr (sizeof(T) == 8) return (Mask)__builtin_ia32_cmpunordpd((v2df)x, (v2df)y);
    else return (Mask)__builtin_ia32_cmpunordps((v4sf)x, (v4sf)y);
#else
    return (x != x) | (y != y);
#endif
}
#endif

#define OPKIT_REDUCE_MAXMIN_VECTORS 8
template <typename T, bool IS_MAX>
static T opkit_reduce_maxmin(const T* p, npy_intp n)
{
#if defined(__GNUC__) && !defined(__clang__)
#if defined(__AVX512F__)
    enum { BYTES = 64 };
#elif defined(__AVX__)
    enum { BYTES = 32 };
#else
    enum { BYTES = 16 };
#endif
    enum { PER = BYTES / (int)sizeof(T), K = OPKIT_REDUCE_MAXMIN_VECTORS };  /* lanes per vector, vectors per step */
    constexpr bool IS_FLOAT = std::is_floating_point<T>::value;  /* integers: no NaN, no signed zero */
    typedef T V __attribute__((vector_size(BYTES)));
    typedef T V_unaligned __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias));  /* loads from p */
    if (n >= PER) {
        auto at = [p](npy_intp i) -> V { return *(const V_unaligned*)(p + i); };
        auto step = [](V a, V x) -> V { return IS_MAX ? (a > x ? a : x) : (a < x ? a : x); };
        V a[K];
        npy_intp i;
        decltype(opkit_reduce_unordered<T>(a[0], a[0])) nan = {};
        if (n >= K * PER) {
#pragma GCC unroll 16
            for (int k = 0; k < K; ++k) a[k] = at(k * PER);
#pragma GCC unroll 16
            for (int k = 0; k < K; k += 2) if constexpr (IS_FLOAT) nan |= opkit_reduce_unordered<T>(a[k], a[k + 1]);
            for (i = K * PER; i + K * PER <= n; i += K * PER) {
                V x[K];
#pragma GCC unroll 16
                for (int k = 0; k < K; ++k) x[k] = at(i + k * PER);
#pragma GCC unroll 16
                for (int k = 0; k < K; ++k) a[k] = step(a[k], x[k]);
#pragma GCC unroll 16
                for (int k = 0; k < K; k += 2) if constexpr (IS_FLOAT) nan |= opkit_reduce_unordered<T>(a[k], a[k + 1]);
            }
#pragma GCC unroll 4
            for (int h = K / 2; h >= 1; h /= 2)
#pragma GCC unroll 16
                for (int k = 0; k < h; ++k) a[k] = step(a[k], a[k + h]);
        } else {
            a[0] = at(0);
            if constexpr (IS_FLOAT) nan |= opkit_reduce_unordered<T>(a[0], a[0]);
            i = PER;
        }
        V acc = a[0];
        for (; i + PER <= n; i += PER) {
            const V x = at(i);
            acc = step(acc, x);
            if constexpr (IS_FLOAT) nan |= opkit_reduce_unordered<T>(x, x);
        }
        if (i < n) {  /* the last PER values */
            const V x = at(n - PER);
            acc = step(acc, x);
            if constexpr (IS_FLOAT) nan |= opkit_reduce_unordered<T>(x, x);
        }
        T lanes[PER];
        memcpy(lanes, &acc, sizeof lanes);
        bool any_nan = false;
        if constexpr (!IS_FLOAT) {
            (void)nan;
        } else if constexpr (sizeof(nan) == sizeof(V)) {  /* a vector of flags, as wide as T */
            decltype(nan[0] + 0) flags[PER];
            static_assert(sizeof flags == sizeof nan, "one flag per lane");
            memcpy(flags, &nan, sizeof flags);
            for (int k = 0; k < PER; ++k) any_nan |= flags[k] != 0;
        } else {  /* a bit per lane (AVX-512) */
            any_nan = nan != 0;
        }
        T res = lanes[0];
        for (int k = 1; k < PER; ++k) res = IS_MAX ? (res > lanes[k] ? res : lanes[k]) : (res < lanes[k] ? res : lanes[k]);
        if (any_nan) return (T)NAN;
        if constexpr (!IS_FLOAT) return res;
        return res == 0 ? opkit_reduce_zero_sign<T, IS_MAX>(p, n, 1) : res;  /* a zero result's sign (rare) */
    }
#endif
    T res = p[0];
    for (npy_intp i = 1; i < n; ++i) res = opkit_reduce_maxmin_combine<T, IS_MAX>(res, p[i]);
    return res;
}

/* The leaves' loop over memory: ask for the line 1 KB ahead of p, as numpy's pairwise sum does (it keeps a
   reading core's loads in flight between its leaves: a one-thread sum of 10^7 float64 went from 1.09x to 0.98x
   numpy's time on an AVX2 host). A prefetch never faults; the address is computed as an integer, since it may
   lie past the array. */
static inline void opkit_reduce_prefetch(const void* p)
{
#if defined(__GNUC__)
    __builtin_prefetch((const void*)((uintptr_t)p + 1024), 0, 3);
#else
    (void)p;
#endif
}

/* Reduce elements [start, start + n) pairwise down to leaves of at most leaf_size elements. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_pairwise(npy_intp leaf_size, npy_intp start, npy_intp n, const Leaf& leaf, const Combine& combine)
{
    if (n <= leaf_size) return leaf(start, n);
    npy_intp half = (n / 2) / leaf_size * leaf_size;
    if (half == 0) half = leaf_size;
    const Acc left = opkit_reduce_pairwise<Acc>(leaf_size, start, half, leaf, combine);
    return combine(left, opkit_reduce_pairwise<Acc>(leaf_size, start + half, n - half, leaf, combine));
}

/* Reduce chunks [first, first + count) of m elements and combine them in a fixed binary tree. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_chunks(npy_intp leaf_size, npy_intp first, npy_intp count, npy_intp m, const Leaf& leaf, const Combine& combine)
{
    if (count == 1) {
        const npy_intp start = first * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        return opkit_reduce_pairwise<Acc>(leaf_size, start, n, leaf, combine);
    }
    const npy_intp half = count / 2;
    const Acc left = opkit_reduce_chunks<Acc>(leaf_size, first, half, m, leaf, combine);
    return combine(left, opkit_reduce_chunks<Acc>(leaf_size, first + half, count - half, m, leaf, combine));
}

/* The same tree as opkit_reduce_chunks over chunk results already computed. */
template <typename Acc, typename Combine>
static Acc opkit_reduce_tree(const Acc* partial, npy_intp count, const Combine& combine)
{
    if (count == 1) return partial[0];
    const npy_intp half = count / 2;
    const Acc left = opkit_reduce_tree(partial, half, combine);
    return combine(left, opkit_reduce_tree(partial + half, count - half, combine));
}

/* Run body(i) for i in [0, n): on the calling thread when threads <= 1 (no OpenMP team is
   started: a fork child of a threaded parent must not start one), else on `threads` threads. */
template <typename Body>
static void opkit_reduce_for(npy_intp n, int threads, const Body& body)
{
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (npy_intp i = 0; i < n; ++i) body(i);
        return;
    }
#endif
    (void)threads;
    for (npy_intp i = 0; i < n; ++i) body(i);
}

/* Reduce m > 0 elements, its chunks spread over threads; 0 on success, -1 with MemoryError set. */
template <typename Acc, typename Leaf, typename Combine>
static int opkit_reduce_threaded(npy_intp leaf_size, npy_intp m, const Leaf& leaf, const Combine& combine, Acc* result)
{
    const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
    const int threads = OPKIT_THREADS_FOR(m);
    if (chunks == 1 || threads <= 1) {
        *result = opkit_reduce_chunks<Acc>(leaf_size, 0, chunks, m, leaf, combine);
        return 0;
    }
    Acc* partial = (Acc*)malloc(chunks * sizeof(Acc));
    if (!partial) { PyErr_NoMemory(); return -1; }
    opkit_reduce_for(chunks, threads, [&](npy_intp c) {
        const npy_intp start = c * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        partial[c] = opkit_reduce_pairwise<Acc>(leaf_size, start, n, leaf, combine);
    });
    *result = opkit_reduce_tree(partial, chunks, combine);
    free(partial);
    return 0;
}

/* ---- Rows: reduced elements that are rows of W adjacent outputs (a non-last axis reduced) ----
   The same tree as opkit_reduce_chunks, for W outputs at once: every value is a row res[0..W). The leaf
   fills res; `stack` holds one row per level of the tree below (the right subtrees' results). */
template <typename Acc, typename Leaf, typename Combine>
static void opkit_reduce_pairwise_rows(npy_intp leaf_size, npy_intp start, npy_intp n, npy_intp W, Acc* res, Acc* stack, const Leaf& leaf,
                                       const Combine& combine)
{
    if (n <= leaf_size) { leaf(start, n, res); return; }
    npy_intp half = (n / 2) / leaf_size * leaf_size;
    if (half == 0) half = leaf_size;
    opkit_reduce_pairwise_rows(leaf_size, start, half, W, res, stack, leaf, combine);
    opkit_reduce_pairwise_rows(leaf_size, start + half, n - half, W, stack, stack + W, leaf, combine);
#pragma omp simd
    for (npy_intp w = 0; w < W; ++w) res[w] = combine(res[w], stack[w]);
}

template <typename Acc, typename Leaf, typename Combine>
static void opkit_reduce_chunks_rows(npy_intp leaf_size, npy_intp first, npy_intp count, npy_intp m, npy_intp W, Acc* res, Acc* stack,
                                     const Leaf& leaf, const Combine& combine)
{
    if (count == 1) {
        const npy_intp start = first * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        opkit_reduce_pairwise_rows(leaf_size, start, n, W, res, stack, leaf, combine);
        return;
    }
    const npy_intp half = count / 2;
    opkit_reduce_chunks_rows(leaf_size, first, half, m, W, res, stack, leaf, combine);
    opkit_reduce_chunks_rows(leaf_size, first + half, count - half, m, W, stack, stack + W, leaf, combine);
#pragma omp simd
    for (npy_intp w = 0; w < W; ++w) res[w] = combine(res[w], stack[w]);
}

/* Rows of scratch one call of opkit_reduce_chunks_rows over m elements may use (its stack): the depth of the tree. */
static inline npy_intp opkit_reduce_tree_levels(npy_intp leaf_size, npy_intp m)
{
    npy_intp levels = 4;
    for (npy_intp size = leaf_size; size < m; size *= 2) ++levels;
    return levels;
}

/* A subtree of the fixed tree over m elements: chunks [first, first + count), or (count == 0) the
   pairwise subtree of elements [start, start + n). */
struct opkit_reduce_node {
    npy_intp first, count, start, n;
};

/* Split `node` into its two children as opkit_reduce_chunks and opkit_reduce_pairwise do; 0 for a leaf. */
static inline int opkit_reduce_split_node(npy_intp leaf_size, opkit_reduce_node node, npy_intp m, opkit_reduce_node* left,
                                          opkit_reduce_node* right)
{
    if (node.count == 1) {  /* one chunk: its pairwise tree */
        node.start = node.first * OPKIT_REDUCE_CHUNK;
        node.n = m - node.start < OPKIT_REDUCE_CHUNK ? m - node.start : OPKIT_REDUCE_CHUNK;
        node.count = 0;
    }
    if (node.count > 1) {
        const npy_intp half = node.count / 2;
        *left = {node.first, half, 0, 0};
        *right = {node.first + half, node.count - half, 0, 0};
        return 1;
    }
    if (node.n <= leaf_size) return 0;
    npy_intp half = (node.n / 2) / leaf_size * leaf_size;
    if (half == 0) half = leaf_size;
    *left = {0, 0, node.start, half};
    *right = {0, 0, node.start + half, node.n - half};
    return 1;
}

/* The subtrees `depth` levels below `node` (fewer where a leaf is met), left to right, appended to nodes. */
static void opkit_reduce_frontier(npy_intp leaf_size, opkit_reduce_node node, npy_intp m, int depth, opkit_reduce_node* nodes,
                                  int* count)
{
    opkit_reduce_node left, right;
    if (depth == 0 || !opkit_reduce_split_node(leaf_size, node, m, &left, &right)) {
        nodes[(*count)++] = node;
        return;
    }
    opkit_reduce_frontier(leaf_size, left, m, depth - 1, nodes, count);
    opkit_reduce_frontier(leaf_size, right, m, depth - 1, nodes, count);
}

/* Combine the rows of the frontier's subtrees (rows[i * W], as opkit_reduce_frontier listed them) in the
   tree's order; return the row holding the result (one of them). */
template <typename Acc, typename Combine>
static Acc* opkit_reduce_combine_frontier(npy_intp leaf_size, opkit_reduce_node node, npy_intp m, int depth, Acc* rows, npy_intp W,
                                          int* index, const Combine& combine)
{
    opkit_reduce_node left, right;
    if (depth == 0 || !opkit_reduce_split_node(leaf_size, node, m, &left, &right)) return rows + (npy_intp)(*index)++ * W;
    Acc* a = opkit_reduce_combine_frontier(leaf_size, left, m, depth - 1, rows, W, index, combine);
    Acc* b = opkit_reduce_combine_frontier(leaf_size, right, m, depth - 1, rows, W, index, combine);
    for (npy_intp w = 0; w < W; ++w) a[w] = combine(a[w], b[w]);
    return a;
}

/* The tree's result over the subtree `node`, into res (stack: opkit_reduce_tree_levels(leaf_size, m) rows). */
template <typename Acc, typename Leaf, typename Combine>
static void opkit_reduce_node_rows(npy_intp leaf_size, opkit_reduce_node node, npy_intp m, npy_intp W, Acc* res, Acc* stack,
                                   const Leaf& leaf, const Combine& combine)
{
    if (node.count > 0) opkit_reduce_chunks_rows(leaf_size, node.first, node.count, m, W, res, stack, leaf, combine);
    else opkit_reduce_pairwise_rows(leaf_size, node.start, node.n, W, res, stack, leaf, combine);
}

#ifdef _OPENMP
#include <omp.h>
#define OPKIT_THREAD_INDEX() omp_get_thread_num()
#else
#define OPKIT_THREAD_INDEX() 0
#endif

/* ---- A Fortran-order matrix reduced over every axis ----
   Return 1 if x is a rows x cols matrix (axes of length 1 aside) stored in Fortran order: element (i, j)
   at element i + j * rows. Its logical (row-major) order crosses memory; the loop packs each chunk. */
static int opkit_reduce_transposed(PyArrayObject* x, int nd, const npy_intp* dims, npy_intp* rows, npy_intp* cols)
{
    int a = -1, b = -1;
    if (PyArray_NDIM(x) != nd) return 0;
    for (int d = 0; d < nd; ++d) {
        if (PyArray_DIMS(x)[d] != dims[d]) return 0;
        if (dims[d] == 1) continue;
        if (a < 0) a = d;
        else if (b < 0) b = d;
        else return 0;
    }
    const npy_intp item = PyArray_ITEMSIZE(x);
    if (b < 0 || PyArray_STRIDES(x)[a] != item || PyArray_STRIDES(x)[b] != item * dims[a]) return 0;
    *rows = dims[a];
    *cols = dims[b];
    return 1;
}

/* Copy logical elements [first, first + count) (number i * cols + j for element (i, j)) of such a matrix
   into buf: 8 columns at a time, each read down its rows in memory order, each row of 8 written at once. */
template <typename T>
static void opkit_reduce_pack_transposed(const T* p, npy_intp rows, npy_intp cols, npy_intp first, npy_intp count,
                                         T* buf)
{
    const npy_intp last = first + count - 1, i0 = first / cols, i1 = last / cols;
    for (npy_intp j0 = 0; j0 < cols; j0 += 8) {
        const npy_intp width = cols - j0 < 8 ? cols - j0 : 8;
        const T* block = p + j0 * rows;
#if defined(__GNUC__)
        /* Each column's run here is short (a chunk spans few rows), too short for the hardware prefetcher to
           follow 8 of them: ask for the next 8 columns' runs while these are copied. */
        for (npy_intp jj = 8; jj < 16 && j0 + jj < cols; ++jj)
            for (npy_intp i = i0; i <= i1; i += 64 / (npy_intp)sizeof(T)) __builtin_prefetch(block + jj * rows + i);
#endif
        for (npy_intp i = i0; i <= i1; ++i) {
            const npy_intp r0 = i * cols + j0;
            if (width == 8 && r0 >= first && r0 + 7 <= last) {  /* the common case, unrolled (modules build at -O2) */
#pragma GCC unroll 8
                for (npy_intp jj = 0; jj < 8; ++jj) buf[r0 + jj - first] = block[i + jj * rows];
            } else if (r0 >= first && r0 + width - 1 <= last) {
                for (npy_intp jj = 0; jj < width; ++jj) buf[r0 + jj - first] = block[i + jj * rows];
            } else {  /* the chunk starts or ends inside this row */
                for (npy_intp jj = 0; jj < width; ++jj)
                    if (r0 + jj >= first && r0 + jj <= last) buf[r0 + jj - first] = block[i + jj * rows];
            }
        }
    }
}

/* ---- Dense layouts: the fast loops read every input in memory order ----
   Return 1 if output o = b * n_in + c (b < n_outer, c < n_in) and reduced element r (numbered row-major
   over the reduced axes) are at element b * m * n_in + r * n_in + c of every non-scalar input, setting
   n_outer and n_in; else 0 (broadcast inputs, gaps, negative strides, axes out of order: the strided path).
   This holds for a C-contiguous input whose reduced axes are adjacent, and for a Fortran-order one reduced
   over one axis (axes of length 1 do not count). With order_free (a combine that gives the same result in
   any order) the reduced axes may lie in any order: r then numbers them in memory order (a Fortran-order
   matrix reduced over every axis is one contiguous run). */
template <int NIN>
static int opkit_reduce_dense(PyArrayObject** ins, const int* scalar, int nd, const npy_intp* dims,
                              const int* reduced, npy_intp* n_outer, npy_intp* n_in, int order_free = 0)
{
    npy_intp stride[NPY_MAXDIMS];
    int first = 1;
    for (int q = 0; q < NIN; ++q) {
        if (scalar[q]) continue;
        if (PyArray_NDIM(ins[q]) != nd) return 0;
        const npy_intp item = PyArray_ITEMSIZE(ins[q]);
        for (int d = 0; d < nd; ++d) {
            if (PyArray_DIMS(ins[q])[d] != dims[d]) return 0;
            if (dims[d] == 1) continue;
            const npy_intp s = PyArray_STRIDES(ins[q])[d];
            if (s <= 0 || s % item) return 0;
            if (first) stride[d] = s / item;
            else if (stride[d] != s / item) return 0;
        }
        first = 0;
    }
    *n_outer = 1;
    *n_in = 1;
    if (first) {  /* every input a scalar: one element */
        for (int d = 0; d < nd; ++d) if (!reduced[d]) *n_outer *= dims[d];
        return 1;
    }
    int axes[NPY_MAXDIMS], na = 0;
    for (int d = 0; d < nd; ++d) {
        if (dims[d] == 1) continue;
        int at = na++;  /* insertion sort, outermost (largest stride) first */
        while (at > 0 && stride[axes[at - 1]] < stride[d]) { axes[at] = axes[at - 1]; --at; }
        axes[at] = d;
    }
    npy_intp expected = 1;
    for (int i = na - 1; i >= 0; --i) {
        if (stride[axes[i]] != expected) return 0;
        expected *= dims[axes[i]];
    }
    int last_kept = -1, last_reduced = -1, state = 0;  /* 0: outer kept axes, 1: reduced, 2: inner kept */
    for (int i = 0; i < na; ++i) {
        const int d = axes[i];
        if (reduced[d]) {
            if (state == 2 || (d < last_reduced && !order_free)) return 0;
            last_reduced = d;
            state = 1;
        } else {
            if (d < last_kept) return 0;
            last_kept = d;
            if (state == 1) state = 2;
            (state == 0 ? *n_outer : *n_in) *= dims[d];
        }
    }
    return 1;
}

/* Where the strided path reads: NIN byte pointers and the index over the reduced axes. */
template <int NIN> struct opkit_reduce_cursor {
    char* ptr[NIN];
    npy_intp idx[NPY_MAXDIMS];
};

/* The axes of a strided reduction: kept ones (numbering output elements) and reduced ones, with the
   inputs' byte strides on each (0 where an input is broadcast). */
template <int NIN> struct opkit_reduce_axes {
    int nk, nr;
    npy_intp kdims[NPY_MAXDIMS], rdims[NPY_MAXDIMS];
    npy_intp kstrides[NIN][NPY_MAXDIMS], rstrides[NIN][NPY_MAXDIMS];
    char* base[NIN];
};

/* Point `c` at reduced element `start` (row-major over the reduced axes) of output element `o`. */
template <int NIN>
static inline void opkit_reduce_locate(opkit_reduce_cursor<NIN>& c, const opkit_reduce_axes<NIN>& a, npy_intp o,
                                       npy_intp start)
{
    for (int q = 0; q < NIN; ++q) c.ptr[q] = a.base[q];
    for (int d = a.nk - 1; d >= 0; --d) {
        const npy_intp at = o % a.kdims[d];
        o /= a.kdims[d];
        for (int q = 0; q < NIN; ++q) c.ptr[q] += at * a.kstrides[q][d];
    }
    for (int d = a.nr - 1; d >= 0; --d) {
        c.idx[d] = start % a.rdims[d];
        start /= a.rdims[d];
        for (int q = 0; q < NIN; ++q) c.ptr[q] += c.idx[d] * a.rstrides[q][d];
    }
}

/* Step `c` to the next reduced element. */
template <int NIN>
static inline void opkit_reduce_advance(opkit_reduce_cursor<NIN>& c, const opkit_reduce_axes<NIN>& a)
{
    int d = a.nr - 1;
    if (d < 0) return;
    for (int q = 0; q < NIN; ++q) c.ptr[q] += a.rstrides[q][d];
    for (; d > 0 && ++c.idx[d] == a.rdims[d]; --d) {
        c.idx[d] = 0;
        for (int q = 0; q < NIN; ++q) c.ptr[q] += a.rstrides[q][d - 1] - a.rdims[d] * a.rstrides[q][d];
    }
}

/* Split the broadcast strides of `ins` over the kept and the reduced axes (reduced[d] says which). */
template <int NIN>
static void opkit_reduce_split_axes(opkit_reduce_axes<NIN>& a, PyArrayObject** ins, int nd, const npy_intp* dims,
                                    const int* reduced)
{
    npy_intp strides[NIN][NPY_MAXDIMS];
    for (int q = 0; q < NIN; ++q) {
        opkit_broadcast_strides(ins[q], nd, strides[q]);
        a.base[q] = (char*)PyArray_DATA(ins[q]);
    }
    a.nk = a.nr = 0;
    for (int d = 0; d < nd; ++d) {
        if (reduced[d]) {
            for (int q = 0; q < NIN; ++q) a.rstrides[q][a.nr] = strides[q][d];
            a.rdims[a.nr++] = dims[d];
        } else {
            for (int q = 0; q < NIN; ++q) a.kstrides[q][a.nk] = strides[q][d];
            a.kdims[a.nk++] = dims[d];
        }
    }
}
#endif

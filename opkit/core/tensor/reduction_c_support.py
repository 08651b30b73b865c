"""The C helpers every reduction module includes once: the blocked pairwise loop and its combining tree.

Split from reduction_c.py (which writes each node's code): this is the fixed
C text, identical for every node; see that module's docstring for the scheme.
"""

REDUCE_SUPPORT_CODE = r"""
#ifndef OPKIT_REDUCE_SUPPORT
#define OPKIT_REDUCE_SUPPORT
/* Threads for a loop over n elements; the generated module defines it (1 below a threshold). */
#ifndef OPKIT_THREADS_FOR
#define OPKIT_THREADS_FOR(n) 1
#endif
#define OPKIT_REDUCE_LEAF 128     /* elements per pairwise leaf, as numpy's PW_BLOCKSIZE */
#define OPKIT_REDUCE_CHUNK 65536  /* elements per unit of parallel work: fixed, whatever the thread count */

/* Reduce elements [start, start + n) pairwise down to leaves of at most OPKIT_REDUCE_LEAF. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_pairwise(npy_intp start, npy_intp n, const Leaf& leaf, const Combine& combine)
{
    if (n <= OPKIT_REDUCE_LEAF) return leaf(start, n);
    npy_intp half = (n / 2) / OPKIT_REDUCE_LEAF * OPKIT_REDUCE_LEAF;
    if (half == 0) half = OPKIT_REDUCE_LEAF;
    const Acc left = opkit_reduce_pairwise<Acc>(start, half, leaf, combine);
    return combine(left, opkit_reduce_pairwise<Acc>(start + half, n - half, leaf, combine));
}

/* Reduce chunks [first, first + count) of m elements and combine them in a fixed binary tree. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_chunks(npy_intp first, npy_intp count, npy_intp m, const Leaf& leaf, const Combine& combine)
{
    if (count == 1) {
        const npy_intp start = first * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        return opkit_reduce_pairwise<Acc>(start, n, leaf, combine);
    }
    const npy_intp half = count / 2;
    const Acc left = opkit_reduce_chunks<Acc>(first, half, m, leaf, combine);
    return combine(left, opkit_reduce_chunks<Acc>(first + half, count - half, m, leaf, combine));
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
static int opkit_reduce_threaded(npy_intp m, const Leaf& leaf, const Combine& combine, Acc* result)
{
    const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
    const int threads = OPKIT_THREADS_FOR(m);
    if (chunks == 1 || threads <= 1) {
        *result = opkit_reduce_chunks<Acc>(0, chunks, m, leaf, combine);
        return 0;
    }
    Acc* partial = (Acc*)malloc(chunks * sizeof(Acc));
    if (!partial) { PyErr_NoMemory(); return -1; }
    opkit_reduce_for(chunks, threads, [&](npy_intp c) {
        const npy_intp start = c * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        partial[c] = opkit_reduce_pairwise<Acc>(start, n, leaf, combine);
    });
    *result = opkit_reduce_tree(partial, chunks, combine);
    free(partial);
    return 0;
}

/* The results of OPKIT_REDUCE_TILE adjacent output elements, reduced together (leading axes reduced). */
#define OPKIT_REDUCE_TILE 64
template <typename A> struct opkit_reduce_tile {
    A v[OPKIT_REDUCE_TILE];
};

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
"""

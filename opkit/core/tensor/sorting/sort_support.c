/* The C shared by Sort, Argsort, TakeAlongAxis and CumOp (opkit/core/tensor/sorting/): an array walked as
   lanes along one axis. A C-contiguous array of shape dims, taken along `axis`, is `outer` blocks of `n`
   rows of `inner` adjacent elements: element (o, k, i) lies at (o * n + k) * inner + i. */

#section support_code
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#ifndef OPKIT_SORT_SUPPORT
#define OPKIT_SORT_SUPPORT
struct opkit_lanes { npy_intp outer, n, inner; };

static opkit_lanes opkit_lanes_of(PyArrayObject* a, int axis)
{
    opkit_lanes lanes = {1, PyArray_DIMS(a)[axis], 1};
    for (int d = 0; d < axis; ++d) lanes.outer *= PyArray_DIMS(a)[d];
    for (int d = axis + 1; d < PyArray_NDIM(a); ++d) lanes.inner *= PyArray_DIMS(a)[d];
    return lanes;
}

/* numpy's order: NaN after every number (a strict weak order: NaNs are equal to each other). */
template <typename T>
static inline bool opkit_sort_less(T a, T b)
{
    if constexpr (std::is_floating_point<T>::value) return a < b || (b != b && a == a);
    else return a < b;
}

/* A C-contiguous array of `a`'s shape and `typenum` (a new reference), or NULL with an error set. */
static PyArrayObject* opkit_empty_like(PyArrayObject* a, int typenum)
{
    return (PyArrayObject*)PyArray_EMPTY(PyArray_NDIM(a), PyArray_DIMS(a), typenum, 0);
}

/* `a` itself if C-contiguous and aligned, else a C-contiguous copy (a new reference either way), or NULL. */
static PyArrayObject* opkit_contiguous(PyArrayObject* a)
{
    return (PyArrayObject*)PyArray_FromAny((PyObject*)a, NULL, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED,
                                           NULL);
}

/* Sort each lane of the C-contiguous `z` in place, NaN last. */
template <typename T>
static void opkit_sort_lanes(PyArrayObject* z, int axis)
{
    const opkit_lanes l = opkit_lanes_of(z, axis);
    T* data = (T*)PyArray_DATA(z);
    if (l.n < 2) return;
    std::vector<T> lane(l.inner == 1 ? 0 : l.n);
    for (npy_intp o = 0; o < l.outer; ++o) {
        T* block = data + o * l.n * l.inner;
        for (npy_intp i = 0; i < l.inner; ++i) {
            if (l.inner == 1) {
                std::sort(block, block + l.n, opkit_sort_less<T>);
                continue;
            }
            for (npy_intp k = 0; k < l.n; ++k) lane[k] = block[k * l.inner + i];
            std::sort(lane.begin(), lane.end(), opkit_sort_less<T>);
            for (npy_intp k = 0; k < l.n; ++k) block[k * l.inner + i] = lane[k];
        }
    }
}

/* z's lanes: the indices that sort the lanes of the C-contiguous `x`, stably (equal values keep their order). */
template <typename T>
static void opkit_argsort_lanes(PyArrayObject* x, PyArrayObject* z, int axis)
{
    const opkit_lanes l = opkit_lanes_of(x, axis);
    const T* data = (const T*)PyArray_DATA(x);
    npy_int64* out = (npy_int64*)PyArray_DATA(z);
    std::vector<T> lane(l.n);
    std::vector<npy_int64> order(l.n);
    for (npy_intp o = 0; o < l.outer; ++o) {
        for (npy_intp i = 0; i < l.inner; ++i) {
            const npy_intp base = o * l.n * l.inner + i;
            for (npy_intp k = 0; k < l.n; ++k) {
                lane[k] = data[base + k * l.inner];
                order[k] = k;
            }
            std::stable_sort(order.begin(), order.end(),
                             [&lane](npy_int64 a, npy_int64 b) { return opkit_sort_less<T>(lane[a], lane[b]); });
            for (npy_intp k = 0; k < l.n; ++k) out[base + k * l.inner] = order[k];
        }
    }
}

/* z[o, k, i] = g[o, index[o, k, i], i] over C-contiguous arrays; 0, or -1 with IndexError for an index
   outside [-n, n) (numpy's take_along_axis; a negative index counts from the end). */
template <typename T>
static int opkit_take_lanes(PyArrayObject* g, PyArrayObject* index, PyArrayObject* z, int axis)
{
    const opkit_lanes l = opkit_lanes_of(g, axis);
    const npy_intp m = PyArray_DIMS(index)[axis];
    const T* src = (const T*)PyArray_DATA(g);
    const npy_int64* idx = (const npy_int64*)PyArray_DATA(index);
    T* out = (T*)PyArray_DATA(z);
    for (npy_intp o = 0; o < l.outer; ++o)
        for (npy_intp k = 0; k < m; ++k)
            for (npy_intp i = 0; i < l.inner; ++i) {
                npy_int64 j = idx[(o * m + k) * l.inner + i];
                if (j < -l.n || j >= l.n) {
                    PyErr_Format(PyExc_IndexError, "take_along_axis: index %lld is out of bounds for axis %d "
                                 "of size %lld", (long long)j, axis, (long long)l.n);
                    return -1;
                }
                if (j < 0) j += l.n;
                out[(o * m + k) * l.inner + i] = src[(o * l.n + j) * l.inner + i];
            }
    return 0;
}

/* z = the running sum (Mul 0) or product (Mul 1) of the C-contiguous `x` along `axis`, in Acc arithmetic:
   npy_uint64 for integer results (they wrap as numpy's), the result's own type for floats. Each lane is
   summed in order, as numpy's add.accumulate; whole rows at a time, so the inner loop is over adjacent
   elements. */
template <typename In, typename Out, int Mul>
static void opkit_cumulate(PyArrayObject* x, PyArrayObject* z, int axis)
{
    typedef typename std::conditional<std::is_integral<Out>::value, npy_uint64, Out>::type Acc;
    const opkit_lanes l = opkit_lanes_of(x, axis);
    const In* src = (const In*)PyArray_DATA(x);
    Out* out = (Out*)PyArray_DATA(z);
    for (npy_intp o = 0; o < l.outer; ++o) {
        const In* s = src + o * l.n * l.inner;
        Out* d = out + o * l.n * l.inner;
        for (npy_intp i = 0; i < l.inner && l.n; ++i) d[i] = (Out)(Acc)s[i];
        for (npy_intp k = 1; k < l.n; ++k) {
            const In* row = s + k * l.inner;
            const Out* prev = d + (k - 1) * l.inner;
            Out* cur = d + k * l.inner;
            for (npy_intp i = 0; i < l.inner; ++i)
                cur[i] = Mul ? (Out)((Acc)prev[i] * (Acc)row[i]) : (Out)((Acc)prev[i] + (Acc)row[i]);
        }
    }
}
#endif

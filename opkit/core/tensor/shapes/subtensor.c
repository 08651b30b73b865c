/* Subtensor's fixed C (opkit/core/tensor/shapes/subtensor.py): numpy's basic indexing, axis by axis, as a view.
   Its code, which reads every index scalar and then walks the index, is the macro `subtensor` of
   opkit/templates/view.c.j2; IncSubtensor and IndexValue share these helpers. */

#section support_code
#include "opkit_view.h"

#ifndef OPKIT_SUBTENSOR_SUPPORT
#define OPKIT_SUBTENSOR_SUPPORT
/* The value of the 0-d integer array `a` (any integer dtype, bool too) as npy_intp, as numpy reads an index:
   - an integer index (`bound` 0) beyond npy_intp raises numpy's OverflowError (numpy's x[np.uint64(2**63)]);
   - a slice bound (`bound` 1) saturates to npy_intp's range: the axis clamps it anyway, as Python's
     slice.indices clamps any int, so x[np.uint64(2**64 - 1):] is empty and x[::np.uint64(2**64 - 1)] is x[:1].
   Never a C cast: a uint64 of 2**63 or more must not wrap to a negative index. */
static int opkit_index_value(PyArrayObject* a, int bound, int axis, npy_intp* out)
{
    const void* p = PyArray_DATA(a);
    npy_longlong s = 0;
    npy_ulonglong u = 0;
    int is_unsigned = 0;
    switch (PyArray_TYPE(a)) {
    case NPY_BOOL: s = *(const npy_bool*)p != 0; break;
    case NPY_BYTE: s = *(const npy_byte*)p; break;
    case NPY_UBYTE: s = *(const npy_ubyte*)p; break;
    case NPY_SHORT: s = *(const npy_short*)p; break;
    case NPY_USHORT: s = *(const npy_ushort*)p; break;
    case NPY_INT: s = *(const npy_int*)p; break;
    case NPY_UINT: u = *(const npy_uint*)p; is_unsigned = 1; break;
    case NPY_LONG: s = *(const npy_long*)p; break;
    case NPY_ULONG: u = *(const npy_ulong*)p; is_unsigned = 1; break;
    case NPY_LONGLONG: s = *(const npy_longlong*)p; break;
    case NPY_ULONGLONG: u = *(const npy_ulonglong*)p; is_unsigned = 1; break;
    default:
        PyErr_Format(PyExc_TypeError, "the index on axis %d must be an integer scalar, got an array of type %d",
                     axis, PyArray_TYPE(a));
        return -1;
    }
    if (is_unsigned ? u <= (npy_ulonglong)NPY_MAX_INTP : (s <= NPY_MAX_INTP && s >= NPY_MIN_INTP)) {
        *out = is_unsigned ? (npy_intp)u : (npy_intp)s;
        return 0;
    }
    if (bound) {
        *out = (is_unsigned || s > 0) ? NPY_MAX_INTP : NPY_MIN_INTP;
        return 0;
    }
    if (is_unsigned)
        PyErr_Format(PyExc_OverflowError, "Python int too large to convert to C long (index %llu on axis %d)",
                     (unsigned long long)u, axis);
    else
        PyErr_Format(PyExc_OverflowError, "Python int too large to convert to C long (index %lld on axis %d)",
                     (long long)s, axis);
    return -1;
}

/* x[..., i, ...] on `axis`: move *data to element i (negative counts from the end), or IndexError as numpy. */
static int opkit_index_axis(PyArrayObject* x, int axis, npy_intp i, char** data)
{
    npy_intp n = PyArray_DIMS(x)[axis];
    npy_intp j = i < 0 ? i + n : i;
    if (j < 0 || j >= n) {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis %d with size %lld",
                     (long long)i, axis, (long long)n);
        return -1;
    }
    *data += j * PyArray_STRIDES(x)[axis];
    return 0;
}

/* x[..., start:stop:step, ...] on `axis` (bit k of `given`: start, stop, step given), Python's slice rules.
   A step below -PY_SSIZE_T_MAX counts as -PY_SSIZE_T_MAX, as PySlice_Unpack takes it; a view of at most
   one element keeps the axis' stride (stride * step could overflow, and one element needs no step). */
static int opkit_slice_axis(PyArrayObject* x, int axis, int given, npy_intp start, npy_intp stop, npy_intp step,
                            char** data, npy_intp* dim, npy_intp* stride)
{
    Py_ssize_t b = (given & 4) ? (Py_ssize_t)step : 1;
    if (b == 0) {
        PyErr_SetString(PyExc_ValueError, "slice step cannot be zero");
        return -1;
    }
    if (b < -PY_SSIZE_T_MAX) b = -PY_SSIZE_T_MAX;
    Py_ssize_t a = (given & 1) ? (Py_ssize_t)start : (b < 0 ? PY_SSIZE_T_MAX : 0);
    Py_ssize_t e = (given & 2) ? (Py_ssize_t)stop : (b < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX);
    Py_ssize_t length = PySlice_AdjustIndices(PyArray_DIMS(x)[axis], &a, &e, b);
    *dim = length;
    *stride = PyArray_STRIDES(x)[axis] * (length > 1 ? b : 1);
    if (length > 0) *data += a * PyArray_STRIDES(x)[axis];
    return 0;
}

/* Read the index scalars `scalars` (n of them, their kinds as in opkit_index_view) into values, all of them
   before any is used: numpy converts every integer of an index before it checks one against its axis. */
static int opkit_index_values(int naxes, const int* kinds, PyArrayObject* const* scalars, npy_intp* values)
{
    for (int a = 0, k = 0; a < naxes; ++a) {
        int count = kinds[a] < 0 ? 1 : ((kinds[a] & 1) + ((kinds[a] >> 1) & 1) + ((kinds[a] >> 2) & 1));
        for (int c = 0; c < count; ++c, ++k)
            if (opkit_index_value(scalars[k], kinds[a] >= 0, a, values + k)) return -1;
    }
    return 0;
}

/* Walk `index` over `x` (kinds[a] < 0: an integer; else bit k of kinds[a]: start, stop, step given, their
   values next in `values`) and return a new view of x[index], or NULL with numpy's error set. */
static PyArrayObject* opkit_index_view(PyArrayObject* x, int naxes, const int* kinds, const npy_intp* values)
{
    npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    char* data = PyArray_BYTES(x);
    int od = 0;
    for (int a = 0; a < naxes; ++a) {
        if (kinds[a] < 0) {
            if (opkit_index_axis(x, a, *values++, &data)) return NULL;
            continue;
        }
        npy_intp part[3] = {0, 0, 0};
        for (int p = 0; p < 3; ++p) if (kinds[a] & (1 << p)) part[p] = *values++;
        if (opkit_slice_axis(x, a, kinds[a], part[0], part[1], part[2], &data, dims + od, strides + od))
            return NULL;
        od++;
    }
    for (int a = naxes; a < PyArray_NDIM(x); ++a, ++od) {
        dims[od] = PyArray_DIMS(x)[a];
        strides[od] = PyArray_STRIDES(x)[a];
    }
    PyArrayObject* view = NULL;
    if (opkit_make_view(&view, x, od, dims, strides, data)) return NULL;
    return view;
}

/* *z = x[index], a view of x: kinds as opkit_index_view takes them, `scalars` the index's 0-d arrays in order. */
static int opkit_subtensor(PyArrayObject** z, PyArrayObject* x, int naxes, const int* kinds,
                           PyArrayObject* const* scalars)
{
    npy_intp values[3 * NPY_MAXDIMS];
    if (opkit_index_values(naxes, kinds, scalars, values)) return -1;
    PyArrayObject* view = opkit_index_view(x, naxes, kinds, values);
    if (!view) return -1;
    Py_XDECREF(*z);
    *z = view;
    return 0;
}
#endif

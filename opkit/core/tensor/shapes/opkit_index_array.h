/* Reading an integer index array as numpy reads it (advanced_subtensor.c, advanced_inc_subtensor.c).
   Its Python twin is index_array in advanced_subtensor.py: same checks, same messages. */
#ifndef OPKIT_INDEX_ARRAY_SUPPORT
#define OPKIT_INDEX_ARRAY_SUPPORT

#define OPKIT_INDEX_CASE(NUM, T, IS_UNSIGNED)                                                                \
    case NUM:                                                                                                \
        for (npy_intp k = 0; k < size; ++k) {                                                                \
            T v = ((const T*)src)[k];                                                                        \
            if (IS_UNSIGNED && (npy_ulonglong)v > (npy_ulonglong)NPY_MAX_INTP) {                             \
                PyErr_Format(PyExc_IndexError, "index %llu is out of bounds for axis %d with size %lld",     \
                             (unsigned long long)v, axis, (long long)n);                                     \
                goto fail;                                                                                   \
            }                                                                                                \
            npy_intp i = (npy_intp)v, j = i < 0 ? i + n : i;                                                 \
            if (j < 0 || j >= n) {                                                                           \
                PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis %d with size %lld",     \
                             (long long)i, axis, (long long)n);                                              \
                goto fail;                                                                                   \
            }                                                                                                \
            dst[k] = j;                                                                                      \
        }                                                                                                    \
        break;

/* A new C-contiguous NPY_INTP array of the integer array `idx`'s values, each an index on an axis of length
   n (`axis` names it in the message), negative ones counted from the end: numpy's IndexError names the first
   one out of range, in C order. A uint64 of 2**63 or more is out of range: numpy's cast would wrap it to a
   negative index, and a C cast would too. */
static PyArrayObject* opkit_index_array(PyArrayObject* idx, npy_intp n, int axis)
{
    PyArrayObject* contiguous = (PyArrayObject*)PyArray_GETCONTIGUOUS(idx);
    if (!contiguous) return NULL;
    PyArrayObject* out = (PyArrayObject*)PyArray_EMPTY(PyArray_NDIM(idx), PyArray_DIMS(idx), NPY_INTP, 0);
    if (!out) {
        Py_DECREF(contiguous);
        return NULL;
    }
    const char* src = (const char*)PyArray_DATA(contiguous);
    npy_intp* dst = (npy_intp*)PyArray_DATA(out);
    npy_intp size = PyArray_SIZE(idx);
    switch (PyArray_TYPE(idx)) {
    OPKIT_INDEX_CASE(NPY_BYTE, npy_byte, 0)
    OPKIT_INDEX_CASE(NPY_UBYTE, npy_ubyte, 1)
    OPKIT_INDEX_CASE(NPY_SHORT, npy_short, 0)
    OPKIT_INDEX_CASE(NPY_USHORT, npy_ushort, 1)
    OPKIT_INDEX_CASE(NPY_INT, npy_int, 0)
    OPKIT_INDEX_CASE(NPY_UINT, npy_uint, 1)
    OPKIT_INDEX_CASE(NPY_LONG, npy_long, 0)
    OPKIT_INDEX_CASE(NPY_ULONG, npy_ulong, 1)
    OPKIT_INDEX_CASE(NPY_LONGLONG, npy_longlong, 0)
    OPKIT_INDEX_CASE(NPY_ULONGLONG, npy_ulonglong, 1)
    default:
        PyErr_SetString(PyExc_IndexError, "arrays used as indices must be of integer (or boolean) type");
        goto fail;
    }
    Py_DECREF(contiguous);
    return out;
fail:
    Py_DECREF(contiguous);
    Py_DECREF(out);
    return NULL;
}
#undef OPKIT_INDEX_CASE

/* numpy's ValueError unless an array of y's shape broadcasts into the indexing result of shape dims[0..nd). */
static int opkit_value_fits(PyArrayObject* y, int nd, const npy_intp* dims)
{
    int k = PyArray_NDIM(y), fits = k <= nd;
    for (int i = 0; fits && i < k; ++i) {
        npy_intp v = PyArray_DIMS(y)[i];
        fits = v == 1 || v == dims[nd - k + i];
    }
    if (fits) return 0;
    char msg[1024];
    size_t len = snprintf(msg, sizeof msg, "shape mismatch: value array of shape ");
    len = opkit_format_shape_sep(msg, len, sizeof msg, k, PyArray_DIMS(y), ",");
    if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " could not be broadcast to indexing result of shape ");
    opkit_format_shape_sep(msg, len, sizeof msg, nd, dims, ",");
    PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}
#endif

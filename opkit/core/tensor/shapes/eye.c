/* Eye's C (opkit/core/tensor/shapes/diagonal.py): numpy.eye(n, m, k) from int64 scalars, any dtype. */

#section support_code
#ifndef OPKIT_EYE_SUPPORT
#define OPKIT_EYE_SUPPORT
/* *z = a new n x m array of `typenum`, zeros with ones on diagonal k; 0, or -1 with numpy's error set. */
static int opkit_eye(PyArrayObject** z, npy_int64 n, npy_int64 m, npy_int64 k, int typenum)
{
    if (n < 0 || m < 0) {
        PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
        return -1;
    }
    npy_intp dims[2] = {(npy_intp)n, (npy_intp)m};
    PyArrayObject* out = (PyArrayObject*)PyArray_ZEROS(2, dims, typenum, 0);
    if (!out) return -1;
    /* the bytes of 1 in this dtype (float16's and bool's included), from numpy's own conversion */
    PyObject* one_int = PyLong_FromLong(1);
    PyArrayObject* one = one_int ? (PyArrayObject*)PyArray_FromAny(one_int, PyArray_DescrFromType(typenum), 0, 0,
                                                                   NPY_ARRAY_DEFAULT, NULL) : NULL;
    Py_XDECREF(one_int);
    if (!one) {
        Py_DECREF(out);
        return -1;
    }
    const npy_intp item = PyArray_ITEMSIZE(out);
    const npy_int64 first = k < 0 ? -k : 0, stop = n < m - k ? n : m - k;
    for (npy_int64 i = first; i < stop; ++i)
        memcpy(PyArray_BYTES(out) + (i * m + i + k) * item, PyArray_BYTES(one), item);
    Py_DECREF(one);
    Py_XDECREF(*z);
    *z = out;
    return 0;
}
#endif

#section code
if (opkit_eye(&OUTPUT_0, *(npy_int64*)PyArray_DATA(INPUT_0), *(npy_int64*)PyArray_DATA(INPUT_1),
              *(npy_int64*)PyArray_DATA(INPUT_2), TYPENUM_OUTPUT_0)) FAIL

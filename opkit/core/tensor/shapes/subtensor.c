/* Subtensor's fixed C (opkit/core/tensor/shapes/subtensor.py): numpy's basic indexing, axis by axis, as a view.
   Its code, one call per indexed axis, is the macro `subtensor` of opkit/templates/view.c.j2. */

#section support_code
#include "opkit_view.h"

#ifndef OPKIT_SUBTENSOR_SUPPORT
#define OPKIT_SUBTENSOR_SUPPORT
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

/* x[..., start:stop:step, ...] on `axis` (bit k of `given`: start, stop, step given), Python's slice rules. */
static int opkit_slice_axis(PyArrayObject* x, int axis, int given, npy_intp start, npy_intp stop, npy_intp step,
                            char** data, npy_intp* dim, npy_intp* stride)
{
    Py_ssize_t b = (given & 4) ? (Py_ssize_t)step : 1;
    if (b == 0) {
        PyErr_SetString(PyExc_ValueError, "slice step cannot be zero");
        return -1;
    }
    Py_ssize_t a = (given & 1) ? (Py_ssize_t)start : (b < 0 ? PY_SSIZE_T_MAX : 0);
    Py_ssize_t e = (given & 2) ? (Py_ssize_t)stop : (b < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX);
    Py_ssize_t length = PySlice_AdjustIndices(PyArray_DIMS(x)[axis], &a, &e, b);
    *dim = length;
    *stride = PyArray_STRIDES(x)[axis] * b;
    if (length > 0) *data += a * PyArray_STRIDES(x)[axis];
    return 0;
}
#endif

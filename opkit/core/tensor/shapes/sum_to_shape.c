/* SumToShape's C (opkit/core/tensor/shapes/sum_to_shape.py): g summed (keepdims) along each axis where the
   int64 vector `shape` says 1 and g's length is not; g itself where nothing is summed. numpy's add.reduce
   sums each axis, as perform does, so both give the same numbers. */

#section support_code
#include "opkit_reshape.h"

#ifndef OPKIT_SUM_TO_SHAPE_SUPPORT
#define OPKIT_SUM_TO_SHAPE_SUPPORT
/* Raise sum_to_shape_value's ValueError (sum_to_shape.py). */
static void opkit_sum_to_shape_error(int nd, const npy_intp* shape, const npy_intp* target)
{
    char msg[1024];
    size_t len = snprintf(msg, sizeof msg, "sum_to_shape: cannot sum an array of shape ");
    len = opkit_format_shape(msg, len, sizeof msg, nd, shape);
    if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " to the shape ");
    len = opkit_format_shape(msg, len, sizeof msg, nd, target);
    if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ": each target length must be the array's or 1");
    PyErr_SetString(PyExc_ValueError, msg);
}

/* `cur` (a new reference, stolen) summed along `axis` with the axis kept as length 1; NULL on error. */
static PyArrayObject* opkit_sum_keep_axis(PyArrayObject* cur, int axis)
{
    npy_intp dims[NPY_MAXDIMS];
    int nd = PyArray_NDIM(cur);
    for (int d = 0; d < nd; ++d) dims[d] = d == axis ? 1 : PyArray_DIMS(cur)[d];
    PyObject* summed = PyArray_Sum(cur, axis, PyArray_TYPE(cur), NULL);
    Py_DECREF(cur);
    if (!summed) return NULL;
    PyArrayObject* array = (PyArrayObject*)PyArray_FROM_O(summed);  /* a 0-d sum may come back a scalar */
    Py_DECREF(summed);
    if (!array) return NULL;
    PyArray_Dims newshape = {dims, nd};
    PyArrayObject* kept = (PyArrayObject*)PyArray_Newshape(array, &newshape, NPY_CORDER);
    Py_DECREF(array);
    return kept;
}

/* g summed to target[0..nd) (a new reference), or NULL with sum_to_shape_value's error set. */
static PyArrayObject* opkit_sum_to_shape(PyArrayObject* g, PyArrayObject* shape)
{
    int nd = PyArray_NDIM(g);
    npy_intp target[NPY_MAXDIMS];
    if (PyArray_DIMS(shape)[0] != nd) {
        PyErr_Format(PyExc_ValueError, "sum_to_shape: the shape vector has %lld entries for a %d-d array",
                     (long long)PyArray_DIMS(shape)[0], nd);
        return NULL;
    }
    for (int d = 0; d < nd; ++d) {
        target[d] = (npy_intp)*(npy_int64*)PyArray_GETPTR1(shape, d);
        if (target[d] != PyArray_DIMS(g)[d] && target[d] != 1) {
            opkit_sum_to_shape_error(nd, PyArray_DIMS(g), target);
            return NULL;
        }
    }
    Py_INCREF(g);
    PyArrayObject* cur = g;
    for (int d = 0; d < nd && cur; ++d)
        if (PyArray_DIMS(cur)[d] != target[d]) cur = opkit_sum_keep_axis(cur, d);
    return cur;
}
#endif

#section code
{
    PyArrayObject* summed = opkit_sum_to_shape(INPUT_0, INPUT_1);
    if (!summed) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = summed;
}

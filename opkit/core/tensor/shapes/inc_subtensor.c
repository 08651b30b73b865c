/* IncSubtensor's fixed C (opkit/core/tensor/shapes/inc_subtensor.py): z = copy of x (or x itself in place),
   then z[index] = y or z[index] += y, y broadcast to the slice as numpy does. Reading and walking the index
   are subtensor.c's (opkit_index_values, opkit_index_view); the code, which hands them the index's scalar
   inputs, is the macro `inc_subtensor` of opkit/templates/inc_subtensor.c.j2. */

#section support_code
#include "opkit_reshape.h"

#ifndef OPKIT_INC_SUBTENSOR_SUPPORT
#define OPKIT_INC_SUBTENSOR_SUPPORT
/* numpy's ValueError (the text broadcast_into_checks in shape_checks.py states) unless y broadcasts into view. */
static int opkit_broadcasts_into(PyArrayObject* y, PyArrayObject* view)
{
    if (opkit_broadcasts(y, view)) return 0;
    int nd = PyArray_NDIM(view), k = PyArray_NDIM(y);
    char msg[1024];
    size_t len = snprintf(msg, sizeof msg, "could not broadcast input array from shape ");
    len = opkit_format_shape_sep(msg, len, sizeof msg, k, PyArray_DIMS(y), ",");
    if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " into shape ");
    opkit_format_shape_sep(msg, len, sizeof msg, nd, PyArray_DIMS(view), ",");
    PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}

/* *z = x with x[index] set to y (`set`) or incremented by y: a copy of x, or x itself when `inplace`.
   kinds and scalars: the index, as opkit_subtensor takes it.
   numpy's casts: a set casts y as x[index] = y does; an add is numpy's in-place add (same_kind). */
static int opkit_inc_subtensor(PyArrayObject** z, PyArrayObject* x, PyArrayObject* y, int inplace, int set,
                               int naxes, const int* kinds, PyArrayObject* const* scalars)
{
    npy_intp values[3 * NPY_MAXDIMS];
    if (opkit_index_values(naxes, kinds, scalars, values)) return -1;
    PyArrayObject* out = inplace ? x : (PyArrayObject*)PyArray_NewCopy(x, NPY_KEEPORDER);
    if (!out) return -1;
    if (inplace) Py_INCREF(out);
    PyArrayObject* view = opkit_index_view(out, naxes, kinds, values);
    int failed = !view || opkit_broadcasts_into(y, view);
    if (!failed && set) {
        failed = PyArray_CopyInto(view, y) < 0;
    } else if (!failed) {
        PyObject* sum = PyNumber_InPlaceAdd((PyObject*)view, (PyObject*)y);
        failed = !sum;
        Py_XDECREF(sum);
    }
    Py_XDECREF(view);
    if (failed) {
        Py_DECREF(out);
        return -1;
    }
    Py_XDECREF(*z);
    *z = out;
    return 0;
}
#endif

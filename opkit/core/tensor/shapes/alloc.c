/* Alloc's fixed C (opkit/core/tensor/shapes/alloc.py): copy a value broadcast into a new array. Its code, which
   reads one length per dimension input, is the macro `alloc` of opkit/templates/alloc.c.j2. */

#section support_code
#include "opkit_reshape.h"

#ifndef OPKIT_ALLOC_SUPPORT
#define OPKIT_ALLOC_SUPPORT
/* Copy `value` broadcast into the new array `z`, or raise broadcast_copy's ValueError (alloc.py). */
static int opkit_alloc_fill(PyArrayObject* z, PyArrayObject* value)
{
    if (!opkit_broadcasts(value, z)) {
        int nd = PyArray_NDIM(z), k = PyArray_NDIM(value);
        char msg[1024];
        size_t len = snprintf(msg, sizeof msg, "alloc: cannot broadcast a value of shape ");
        len = opkit_format_shape(msg, len, sizeof msg, k, PyArray_DIMS(value));
        if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " to the shape ");
        len = opkit_format_shape(msg, len, sizeof msg, nd, PyArray_DIMS(z));
        if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ": numpy's broadcasting needs each of its "
                                       "lengths to be 1 or the target's, counted from the last axis");
        PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    return PyArray_CopyInto(z, value);
}
#endif

/* SumToShape's C (opkit/core/tensor/shapes/sum_to_shape.py): g summed (keepdims) along each axis where the
   int64 vector `shape` says 1 and g's length is not; g itself where nothing is summed. One call of numpy's
   add.reduce over those axes, as perform makes, so both give the same numbers. */

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

/* numpy.add.reduce, looked up once (a borrowed reference kept for the life of the module), or NULL. */
static PyObject* opkit_add_reduce(void)
{
    static PyObject* reduce = NULL;
    if (!reduce) {
        PyObject* numpy = PyImport_ImportModule("numpy");
        PyObject* add = numpy ? PyObject_GetAttrString(numpy, "add") : NULL;
        Py_XDECREF(numpy);
        reduce = add ? PyObject_GetAttrString(add, "reduce") : NULL;
        Py_XDECREF(add);
    }
    return reduce;
}

/* numpy.add.reduce(g, axis=axes, dtype=z's, out=z, keepdims=True): perform's one call. 0 or -1. */
static int opkit_sum_into(PyArrayObject* g, PyObject* axes, PyArrayObject* z)
{
    PyObject* reduce = opkit_add_reduce();
    if (!reduce) return -1;
    PyObject* args = Py_BuildValue("(O)", (PyObject*)g);
    PyObject* kwargs = args ? Py_BuildValue("{s:O,s:O,s:O,s:O}", "axis", axes, "dtype", (PyObject*)PyArray_DESCR(z),
                                            "out", (PyObject*)z, "keepdims", Py_True) : NULL;
    PyObject* result = kwargs ? PyObject_Call(reduce, args, kwargs) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(result);
    return result ? 0 : -1;
}

/* g summed to the int64 vector `shape` (a new reference: g itself where nothing is summed), or NULL with
   sum_to_shape_value's error set. */
static PyArrayObject* opkit_sum_to_shape(PyArrayObject* g, PyArrayObject* shape)
{
    int nd = PyArray_NDIM(g), summed = 0;
    npy_intp target[NPY_MAXDIMS];
    if (PyArray_DIMS(shape)[0] != nd) {
        PyErr_Format(PyExc_ValueError, "sum_to_shape: the shape vector has %lld entries for a %d-d array",
                     (long long)PyArray_DIMS(shape)[0], nd);
        return NULL;
    }
    for (int d = 0; d < nd; ++d)  /* all of it first: the message names the whole target */
        target[d] = (npy_intp)*(npy_int64*)PyArray_GETPTR1(shape, d);
    for (int d = 0; d < nd; ++d) {
        if (target[d] != PyArray_DIMS(g)[d] && target[d] != 1) {
            opkit_sum_to_shape_error(nd, PyArray_DIMS(g), target);
            return NULL;
        }
        summed += target[d] != PyArray_DIMS(g)[d];
    }
    if (!summed) {
        Py_INCREF(g);
        return g;
    }
    PyObject* axes = PyTuple_New(summed);
    for (int d = 0, k = 0; axes && d < nd; ++d) {
        if (target[d] == PyArray_DIMS(g)[d]) continue;
        PyObject* axis = PyLong_FromLong(d);
        if (!axis) Py_CLEAR(axes);
        else PyTuple_SET_ITEM(axes, k++, axis);
    }
    PyArrayObject* z = axes ? (PyArrayObject*)PyArray_EMPTY(nd, target, PyArray_TYPE(g), 0) : NULL;
    if (z && opkit_sum_into(g, axes, z)) Py_CLEAR(z);
    Py_XDECREF(axes);
    return z;
}
#endif

#section code
{
    PyArrayObject* summed = opkit_sum_to_shape(INPUT_0, INPUT_1);
    if (!summed) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = summed;
}

/* AdvancedIncSubtensor1's C (opkit/core/tensor/shapes/advanced_inc_subtensor.py): z = a copy of x (x itself in
   place), then z[idx] = y (numpy's assignment: the last write of a repeated index wins) or z[idx] += y, repeated
   indices accumulating as numpy.add.at (PARAMS->ignore_duplicates: numpy's buffered z[idx] += y). The index is
   read by opkit_index_array, as AdvancedSubtensor1 reads it. */

#section support_code
#include "opkit_reshape.h"
#include "opkit_index_array.h"

#ifndef OPKIT_ADVANCED_INC_SUPPORT
#define OPKIT_ADVANCED_INC_SUPPORT
/* numpy.add.at, looked up once (kept for the life of the module), or NULL. */
static PyObject* opkit_add_at(void)
{
    static PyObject* at = NULL;
    if (!at) {
        PyObject* numpy = PyImport_ImportModule("numpy");
        PyObject* add = numpy ? PyObject_GetAttrString(numpy, "add") : NULL;
        Py_XDECREF(numpy);
        at = add ? PyObject_GetAttrString(add, "at") : NULL;
        Py_XDECREF(add);
    }
    return at;
}

/* z[idx] = y, z[idx] += y or numpy.add.at(z, idx, y) for the intp vector idx on axis 0 of z. 0 or -1. */
static int opkit_write_rows(PyArrayObject* z, PyArrayObject* idx, PyArrayObject* y, int set, int ignore_duplicates)
{
    npy_intp dims[NPY_MAXDIMS];
    int nd = PyArray_NDIM(z);
    dims[0] = PyArray_DIMS(idx)[0];
    for (int d = 1; d < nd; ++d) dims[d] = PyArray_DIMS(z)[d];
    if (opkit_value_fits(y, nd, dims)) return -1;
    if (set) return PyObject_SetItem((PyObject*)z, (PyObject*)idx, (PyObject*)y);
    if (ignore_duplicates) {
        PyObject* rows = PyObject_GetItem((PyObject*)z, (PyObject*)idx);
        PyObject* sum = rows ? PyNumber_InPlaceAdd(rows, (PyObject*)y) : NULL;
        int failed = !sum || PyObject_SetItem((PyObject*)z, (PyObject*)idx, sum) < 0;
        Py_XDECREF(rows);
        Py_XDECREF(sum);
        return failed ? -1 : 0;
    }
    PyObject* at = opkit_add_at();
    PyObject* result = at ? PyObject_CallFunctionObjArgs(at, (PyObject*)z, (PyObject*)idx, (PyObject*)y, NULL) : NULL;
    Py_XDECREF(result);
    return result ? 0 : -1;
}
#endif

#section code
{
    PyArrayObject* idx = opkit_index_array(INPUT_2, PyArray_DIMS(INPUT_0)[0], 0);
    if (!idx) FAIL
    PyArrayObject* z = PARAMS->inplace ? INPUT_0 : (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_KEEPORDER);
    if (z && PARAMS->inplace) Py_INCREF(z);
    int failed = !z || opkit_write_rows(z, idx, INPUT_1, PARAMS->set_instead_of_inc, PARAMS->ignore_duplicates);
    Py_DECREF(idx);
    if (failed) {
        Py_XDECREF(z);
        FAIL
    }
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = z;
}

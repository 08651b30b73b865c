/* ResolvedShape's C (opkit/core/tensor/shapes/reshape.py): a reshape's target shape with its -1 resolved. */

#section support_code
#include "opkit_reshape.h"

#section code
{
    /* INPUT_0: the int64 target shape; INPUT_1: the int64 source shape. */
    const npy_intp source_nd = PyArray_DIMS(INPUT_1)[0];
    npy_intp source[NPY_MAXDIMS];
    for (npy_intp d = 0; d < source_nd && d < NPY_MAXDIMS; ++d)
        source[d] = (npy_intp)*(npy_int64*)PyArray_GETPTR1(INPUT_1, d);
    npy_intp nd = PyArray_DIMS(INPUT_0)[0];
    npy_intp* dims = (npy_intp*)PyMem_Malloc((size_t)(nd > 0 ? nd : 1) * sizeof(npy_intp));
    if (!dims) { PyErr_NoMemory(); FAIL }
    if (opkit_resolve_shape((int)source_nd, source, INPUT_0, (int)nd, dims)) { PyMem_Free(dims); FAIL }
    if (!OUTPUT_0 || PyArray_DIMS(OUTPUT_0)[0] != nd) {
        Py_XDECREF(OUTPUT_0);
        OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(1, &nd, NPY_INT64, 0);
        if (!OUTPUT_0) { PyMem_Free(dims); FAIL }
    }
    for (npy_intp d = 0; d < nd; ++d) ((npy_int64*)PyArray_DATA(OUTPUT_0))[d] = (npy_int64)dims[d];
    PyMem_Free(dims);
}

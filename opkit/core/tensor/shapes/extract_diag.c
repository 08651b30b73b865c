/* ExtractDiag's C (opkit/core/tensor/shapes/diagonal.py): numpy.diagonal(x, offset, axis1, axis2) as a view. */

#section support_code
#include "opkit_view.h"

#ifndef OPKIT_EXTRACT_DIAG_SUPPORT
#define OPKIT_EXTRACT_DIAG_SUPPORT
/* *z = a view of x: the other axes in order, then the diagonal (stride: the sum of both axes' strides). */
static int opkit_extract_diag(PyArrayObject** z, PyArrayObject* x, npy_int64 offset, int axis1, int axis2)
{
    const int nd = PyArray_NDIM(x);
    const npy_intp* xdims = PyArray_DIMS(x);
    const npy_intp* xstrides = PyArray_STRIDES(x);
    npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    const npy_int64 n1 = xdims[axis1], n2 = xdims[axis2];
    npy_int64 length = offset >= 0 ? (n1 < n2 - offset ? n1 : n2 - offset) : (n1 + offset < n2 ? n1 + offset : n2);
    char* data = PyArray_BYTES(x);
    if (length <= 0) {
        length = 0;
    } else {
        data += (offset < 0 ? -offset : 0) * xstrides[axis1] + (offset > 0 ? offset : 0) * xstrides[axis2];
    }
    int k = 0;
    for (int a = 0; a < nd; ++a) {
        if (a == axis1 || a == axis2) continue;
        dims[k] = xdims[a];
        strides[k++] = xstrides[a];
    }
    dims[k] = (npy_intp)length;
    strides[k++] = xstrides[axis1] + xstrides[axis2];
    return opkit_make_view(z, x, k, dims, strides, data);
}
#endif

#section code
if (opkit_extract_diag(&OUTPUT_0, INPUT_0, PARAMS->offset, (int)PARAMS->axis1, (int)PARAMS->axis2)) FAIL

/* Reshape's C (opkit/core/tensor/shapes/reshape.py): numpy.reshape in C order, a view where numpy makes one. */

#section support_code
#include "opkit_reshape.h"

#section code
{
    npy_intp dims[NPY_MAXDIMS];
    const int nd = (int)PARAMS->ndim;
    if (opkit_reshape_dims(INPUT_0, INPUT_1, nd, dims)) FAIL
    PyArray_Dims newshape = {dims, nd};
    PyArrayObject* reshaped = (PyArrayObject*)PyArray_Newshape(INPUT_0, &newshape, NPY_CORDER);
    if (!reshaped) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = reshaped;
}

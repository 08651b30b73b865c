#section support_code
#include "scale.h"

#section support_code_apply
int APPLY_SPECIFIC(scale)(PyArrayObject* x, PyArrayObject** out)
{
    if (*out == NULL || PyArray_DIMS(*out)[0] != PyArray_DIMS(x)[0]) {
        Py_XDECREF(*out);
        *out = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(x), TYPENUM_OUTPUT_0, 0);
        if (*out == NULL) return 1;
    }
    for (npy_intp i = 0; i < PyArray_DIMS(x)[0]; ++i) {
        *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(*out, i) = SCALE * *(DTYPE_INPUT_0*)PyArray_GETPTR1(x, i);
    }
    return 0;
}

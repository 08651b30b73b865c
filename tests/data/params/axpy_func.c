#section support_code_apply
// func_name form: the params struct is the last argument.
int APPLY_SPECIFIC(axpy)(PyArrayObject* x, PyArrayObject* y, PyArrayObject** z, PARAMS_TYPE* params)
{
    if (PyArray_NDIM(x) != 1 || PyArray_NDIM(y) != 1 || PyArray_DIM(x, 0) != PyArray_DIM(y, 0)) {
        PyErr_SetString(PyExc_ValueError, "axpy: x and y must be vectors of one length");
        return 1;
    }
    Py_XDECREF(*z);
    *z = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(x), TYPENUM_OUTPUT_0, 0);
    if (!*z) return 1;
    DTYPE_PARAM_alpha alpha = params->alpha;
    for (npy_intp i = 0; i < PyArray_DIM(x, 0); ++i) {
        DTYPE_INPUT_0 xi = *(DTYPE_INPUT_0*)PyArray_GETPTR1(x, i);
        DTYPE_INPUT_1 yi = *(DTYPE_INPUT_1*)PyArray_GETPTR1(y, i);
        *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(*z, i) = params->mode == MUL ? alpha * xi * yi : alpha * xi + yi;
    }
    return 0;
}

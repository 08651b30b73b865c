#section support_code
// PyTensor-style op file: z = alpha * x + y (mode ADD) or alpha * x * y (mode MUL).

#section code
if (PyArray_NDIM(INPUT_0) != 1 || PyArray_NDIM(INPUT_1) != 1 || PyArray_DIM(INPUT_0, 0) != PyArray_DIM(INPUT_1, 0)) {
    PyErr_SetString(PyExc_ValueError, "axpy: x and y must be vectors of one length");
    FAIL;
}
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(INPUT_0), TYPENUM_OUTPUT_0, 0);
if (!OUTPUT_0) FAIL;
for (npy_intp i = 0; i < PyArray_DIM(INPUT_0, 0); ++i) {
    DTYPE_INPUT_0 x = *(DTYPE_INPUT_0*)PyArray_GETPTR1(INPUT_0, i);
    DTYPE_INPUT_1 y = *(DTYPE_INPUT_1*)PyArray_GETPTR1(INPUT_1, i);
    *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(OUTPUT_0, i) = PARAMS->mode == MUL ? PARAMS->alpha * x * y
                                                                          : PARAMS->alpha * x + y;
}

/* AllocDiag's C (opkit/core/tensor/shapes/diagonal.py): numpy.diag(v, k) of a vector, a new square matrix. */

#section support_code
#ifndef OPKIT_ALLOC_DIAG_SUPPORT
#define OPKIT_ALLOC_DIAG_SUPPORT
/* *z = zeros of (n + |offset|) squared with v (any strides) on diagonal `offset`; 0, or -1 with an error set. */
static int opkit_alloc_diag(PyArrayObject** z, PyArrayObject* v, npy_int64 offset)
{
    const npy_intp n = PyArray_DIMS(v)[0], shift = (npy_intp)(offset < 0 ? -offset : offset);
    const npy_intp size = n + shift, row = offset < 0 ? shift : 0, col = offset > 0 ? shift : 0;
    npy_intp dims[2] = {size, size};
    PyArray_Descr* descr = PyArray_DESCR(v);
    Py_INCREF(descr);
    PyArrayObject* out = (PyArrayObject*)PyArray_Zeros(2, dims, descr, 0);
    if (!out) return -1;
    const npy_intp item = PyArray_ITEMSIZE(out), step = PyArray_STRIDES(v)[0];
    char* dst = PyArray_BYTES(out) + (row * size + col) * item;
    for (npy_intp i = 0; i < n; ++i)
        memcpy(dst + i * (size + 1) * item, PyArray_BYTES(v) + i * step, item);
    Py_XDECREF(*z);
    *z = out;
    return 0;
}
#endif

#section code
if (opkit_alloc_diag(&OUTPUT_0, INPUT_0, PARAMS->offset)) FAIL

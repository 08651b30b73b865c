#section support_code
/* A CPU op whose file also carries CUDA kernels: the kernels never reach the host module. */

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_NewLikeArray(INPUT_0, NPY_CORDER, NULL, 0);
if (OUTPUT_0 == NULL) FAIL
{
    npy_intp n = PyArray_SIZE(INPUT_0);
    PyArrayObject* in = (PyArrayObject*)PyArray_FROM_OTF((PyObject*)INPUT_0, TYPENUM_INPUT_0, NPY_ARRAY_C_CONTIGUOUS);
    if (in == NULL) FAIL
    const DTYPE_INPUT_0* x = (const DTYPE_INPUT_0*)PyArray_DATA(in);
    DTYPE_OUTPUT_0* y = (DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0);
    for (npy_intp i = 0; i < n; ++i) {
        y[i] = 2 * x[i];
    }
    Py_DECREF(in);
}

#section kernels
extern "C" __global__ void APPLY_SPECIFIC(twice)(npy_intp n, const DTYPE_INPUT_0* x, DTYPE_OUTPUT_0* y)
{
    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2 * x[i];
    }
}

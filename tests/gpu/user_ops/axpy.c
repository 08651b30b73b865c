#section kernels
// z = a * x + y over the elements of x and y (strided vectors, strides in elements); `a` is a 0-d GPU array.
extern "C" __global__ void APPLY_SPECIFIC(axpy)(npy_intp n, const DTYPE_INPUT_0* a,
                                                const DTYPE_INPUT_1* x, npy_intp x_step,
                                                const DTYPE_INPUT_2* y, npy_intp y_step, DTYPE_OUTPUT_0* z)
{
    for (npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (npy_intp)blockDim.x * gridDim.x) {
        z[i] = a[0] * x[i * x_step] + y[i * y_step];
    }
}

#section code
{
    npy_intp n = INPUT_1->dims[0];
    if (INPUT_2->dims[0] != n) {
        PyErr_Format(PyExc_ValueError, "axpy: x has %zd elements but y has %zd", (Py_ssize_t)n,
                     (Py_ssize_t)INPUT_2->dims[0]);
        FAIL;
    }
    if (opkit_gpu_empty(&OUTPUT_0, 1, INPUT_1->dims, TYPENUM_OUTPUT_0)) FAIL;
    if (n > 0) {
        npy_intp blocks = (n + 127) / 128;
        int grid = (int)(blocks < 64 ? blocks : 64);  /* a grid-stride loop covers the rest */
        if (OPKIT_LAUNCH(axpy, grid, 128, 0, n, (const DTYPE_INPUT_0*)INPUT_0->data,
                         (const DTYPE_INPUT_1*)INPUT_1->data, (npy_intp)(INPUT_1->strides[0] / (npy_intp)sizeof(DTYPE_INPUT_1)),
                         (const DTYPE_INPUT_2*)INPUT_2->data, (npy_intp)(INPUT_2->strides[0] / (npy_intp)sizeof(DTYPE_INPUT_2)),
                         (DTYPE_OUTPUT_0*)OUTPUT_0->data)) FAIL;
    }
}

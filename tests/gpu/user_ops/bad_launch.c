#section kernels
extern "C" __global__ void APPLY_SPECIFIC(copy)(npy_intp n, const DTYPE_INPUT_0* x, DTYPE_OUTPUT_0* y)
{
    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

#section code
{
    npy_intp n = INPUT_0->dims[0];
    if (opkit_gpu_empty(&OUTPUT_0, 1, INPUT_0->dims, TYPENUM_OUTPUT_0)) FAIL;
    /* 4096 threads per block: more than any CUDA device allows, so the launch fails */
    if (OPKIT_LAUNCH(copy, 1, 4096, 0, n, (const DTYPE_INPUT_0*)INPUT_0->data, (DTYPE_OUTPUT_0*)OUTPUT_0->data)) FAIL;
}

#section kernels
#define BLOCK_SUM_THREADS 256

// The sum of a strided vector by one block: each thread adds a grid-stride share, then a tree reduction
// in shared memory with __syncthreads between its steps.
extern "C" __global__ void APPLY_SPECIFIC(block_sum)(npy_intp n, const DTYPE_INPUT_0* x, npy_intp step,
                                                     DTYPE_OUTPUT_0* out)
{
    __shared__ DTYPE_OUTPUT_0 partial[BLOCK_SUM_THREADS];
    DTYPE_OUTPUT_0 acc = 0;
    for (npy_intp i = threadIdx.x; i < n; i += blockDim.x) {
        acc += x[i * step];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            partial[threadIdx.x] += partial[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[0] = partial[0];
    }
}

#section code
{
    npy_intp n = INPUT_0->dims[0];
    if (opkit_gpu_empty(&OUTPUT_0, 0, NULL, TYPENUM_OUTPUT_0)) FAIL;
    if (OPKIT_LAUNCH(block_sum, 1, BLOCK_SUM_THREADS, 0, n, (const DTYPE_INPUT_0*)INPUT_0->data,
                     (npy_intp)(INPUT_0->strides[0] / (npy_intp)sizeof(DTYPE_INPUT_0)),
                     (DTYPE_OUTPUT_0*)OUTPUT_0->data)) FAIL;
}

// The kernels of tests/gpu/interpreter_contract.cpp, as a `kernels` section holds them (APPLY_SPECIFIC
// names the node's copy).
extern "C" __global__ void APPLY_SPECIFIC(scale)(int n, float a, const float* x, float* out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = a * x[i];
}

extern "C" __global__ void APPLY_SPECIFIC(block_total)(int n, const double* x, double* out)
{
    extern __shared__ double partial[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? x[i] : 0.0;
    __syncthreads();
    if (t == 0) {
        double s = 0.0;
        for (int k = 0; k < (int)blockDim.x; ++k) s += partial[k];
        out[blockIdx.x] = s;
    }
}

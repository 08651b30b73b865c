#section kernels

/* (x*y+z)*2-x on float32 vectors of one length, contiguous: the benchmark's user kernel
   (benchmarks/figure_gpu.py), and the kernel of its cold-compile and call-overhead figures. */
extern "C" __global__ void APPLY_SPECIFIC(fused)(npy_intp n, const DTYPE_INPUT_0* x, const DTYPE_INPUT_1* y,
                                                 const DTYPE_INPUT_2* z, DTYPE_OUTPUT_0* out)
{
    for (npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (npy_intp)gridDim.x * blockDim.x) {
        DTYPE_OUTPUT_0 a = x[i];
        out[i] = (a * y[i] + z[i]) * (DTYPE_OUTPUT_0)2 - a;
    }
}

#section code

{
    npy_intp n = INPUT_0->dims[0];
    for (int k = 0; k < 3; k++) {
        OpkitGpuArray* in = k == 0 ? INPUT_0 : k == 1 ? INPUT_1 : INPUT_2;
        if (in->dims[0] != n || (n > 1 && in->strides[0] != (npy_intp)sizeof(DTYPE_OUTPUT_0))) {
            PyErr_SetString(PyExc_ValueError, "Fused: x, y and z must be contiguous vectors of one length");
            FAIL;
        }
    }
    if (opkit_gpu_empty(&OUTPUT_0, 1, INPUT_0->dims, TYPENUM_OUTPUT_0)) FAIL;
    const DTYPE_INPUT_0* x = (const DTYPE_INPUT_0*)INPUT_0->data;
    const DTYPE_INPUT_1* y = (const DTYPE_INPUT_1*)INPUT_1->data;
    const DTYPE_INPUT_2* z = (const DTYPE_INPUT_2*)INPUT_2->data;
    DTYPE_OUTPUT_0* out = (DTYPE_OUTPUT_0*)OUTPUT_0->data;
    npy_intp wanted = (n + 255) / 256;
    int blocks = (int)(wanted < 65536 ? wanted : 65536);
    if (n > 0 && OPKIT_LAUNCH(fused, blocks, 256, 0, n, x, y, z, out)) FAIL;
}

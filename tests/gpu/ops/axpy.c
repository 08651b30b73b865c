#section kernels
#include "axpy_helpers.h"

extern "C" __global__ void APPLY_SPECIFIC(axpy)(npy_intp n, DTYPE_INPUT_0 a, const DTYPE_INPUT_1* x,
                                                DTYPE_OUTPUT_0* y)
{
    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = axpy_scale(a, x[i]);
    }
}

// A second kernel: its name is APPLY_SPECIFIC'd too.
extern "C" __global__ void APPLY_SPECIFIC(fill)(npy_intp n, DTYPE_OUTPUT_0 value, DTYPE_OUTPUT_0* y)
{
    npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = value;
    }
}

#section code
/* Host code: checked by the C linker like any node; this test op is only compiled for its kernels. */
if (0) FAIL;

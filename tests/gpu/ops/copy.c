#section kernels
/* Every dtype: NVRTC's DTYPE_* are numpy's types (sizes and NPY_* numbers as numpy's; the test passes the
   expected number as -DEXPECTED_TYPENUM=...). */
static_assert(sizeof(DTYPE_INPUT_0) == ITEMSIZE_INPUT_0, "DTYPE_INPUT_0 has numpy's item size");
static_assert(sizeof(DTYPE_OUTPUT_0) == ITEMSIZE_OUTPUT_0, "DTYPE_OUTPUT_0 has numpy's item size");
#ifdef EXPECTED_TYPENUM
static_assert(TYPENUM_INPUT_0 == EXPECTED_TYPENUM, "TYPENUM_INPUT_0 is numpy's number");
#endif

extern "C" __global__ void APPLY_SPECIFIC(copy)(npy_intp n, const DTYPE_INPUT_0* x, DTYPE_OUTPUT_0* y)
{
    for (npy_intp i = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (npy_intp)gridDim.x * blockDim.x) {
        y[i] = x[i];
    }
}

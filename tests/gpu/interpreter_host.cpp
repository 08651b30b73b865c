// Host side of tests/gpu/test_interpreter.py: each run_<kernel> launches one kernel of
// interpreter_kernels.cu through opkit's CPU interpreter (0, or -1 with opkit_test_error()).
#include "cuda_interpret.h"
#include "interpreter_kernels.cu"

#define OPKIT_TEST extern "C" __attribute__((visibility("default")))

OPKIT_TEST const char* opkit_test_error() { return opkit_interp::last_error(); }

OPKIT_TEST int run_axpy(long long grid, long long block, int n, float a, const float* x, float* y)
{
    return OPKIT_INTERP_LAUNCH(axpy, grid, block, 0, n, a, x, y);
}

OPKIT_TEST int run_block_sum(int grid, int block, int n, const double* x, double* partial)
{
    return OPKIT_INTERP_LAUNCH(block_sum, grid, block, 0, n, x, partial);
}

OPKIT_TEST int run_histogram(int grid, int block, int n, const int* x, unsigned int* bins)
{
    return OPKIT_INTERP_LAUNCH(histogram, grid, block, 0, n, x, bins);
}

OPKIT_TEST int run_warp_sums(int grid, int block, int n, const int* x, int* every_lane, unsigned long long* total)
{
    return OPKIT_INTERP_LAUNCH(warp_sums, grid, block, 0, n, x, every_lane, total);
}

OPKIT_TEST int run_segment_scan(int grid, int block, int n, int width, const int* x, int* scan, int* first)
{
    return OPKIT_INTERP_LAUNCH(segment_scan, grid, block, 0, n, width, x, scan, first);
}

OPKIT_TEST int run_votes(int grid, int block, int n, const int* x, unsigned int* ballot, int* all, int* any)
{
    return OPKIT_INTERP_LAUNCH(votes, grid, block, 0, n, x, ballot, all, any);
}

OPKIT_TEST int run_coordinates(long long gx, long long gy, long long gz, long long bx, long long by, long long bz,
                               unsigned long long shared_bytes, long long* out)
{
    if (gx > 0 && gy > 0 && gz > 0 && bx > 0 && by > 0 && bz > 0 && gx < (1LL << 32) && bx < (1LL << 32))
        return OPKIT_INTERP_LAUNCH(coordinates, dim3(gx, gy, gz), dim3(bx, by, bz), shared_bytes, out);
    return OPKIT_INTERP_LAUNCH(coordinates, gx, bx, shared_bytes, out);  // an invalid count, given as an integer
}

OPKIT_TEST int run_block_votes(int grid, int block, int n, const int* x, int* counts)
{
    return OPKIT_INTERP_LAUNCH(block_votes, grid, block, 0, n, x, counts);
}

OPKIT_TEST int run_half_warp(int grid, int block, const int* x, int* out)
{
    return OPKIT_INTERP_LAUNCH(half_warp, grid, block, 0, x, out);
}

OPKIT_TEST int run_early_exit(int grid, int block, int n, float* y)
{
    return OPKIT_INTERP_LAUNCH(early_exit, grid, block, 0, n, y);
}

OPKIT_TEST int run_two_barriers(int block, float* y) { return OPKIT_INTERP_LAUNCH(two_barriers, 1, block, 0, y); }
OPKIT_TEST int run_wrong_mask(int block, int* y) { return OPKIT_INTERP_LAUNCH(wrong_mask, 1, block, 0, y); }
OPKIT_TEST int run_read_exited(int block, int* y) { return OPKIT_INTERP_LAUNCH(read_exited, 1, block, 0, y); }

OPKIT_TEST int run_asserting(int grid, int block, int n, const int* x)
{
    return OPKIT_INTERP_LAUNCH(asserting, grid, block, 0, n, x);
}

OPKIT_TEST int run_trapping(int block, int which, int* y) { return OPKIT_INTERP_LAUNCH(trapping, 1, block, 0, which, y); }

OPKIT_TEST int run_atomics(int grid, int block, int n, const int* x, int* i32, unsigned int* u32,
                           unsigned long long* u64, long long* i64, float* f32, double* f64)
{
    return OPKIT_INTERP_LAUNCH(atomics, grid, block, 0, n, x, i32, u32, u64, i64, f32, f64);
}

OPKIT_TEST int run_bit_intrinsics(int grid, int block, int n, const unsigned int* x, unsigned int* out)
{
    return OPKIT_INTERP_LAUNCH(bit_intrinsics, grid, block, 0, n, x, out);
}

OPKIT_TEST int run_conversions(int grid, int block, int n, const float* f, const double* d, int* i32,
                               unsigned int* u32, long long* i64, float* back)
{
    return OPKIT_INTERP_LAUNCH(conversions, grid, block, 0, n, f, d, i32, u32, i64, back);
}

OPKIT_TEST int run_warp_extras(int grid, int block, const int* x, unsigned int* out)
{
    return OPKIT_INTERP_LAUNCH(warp_extras, grid, block, 0, x, out);
}

OPKIT_TEST int run_racy_shift(int block, const int* x, int* y) { return OPKIT_INTERP_LAUNCH(racy_shift, 1, block, 0, x, y); }

OPKIT_TEST int run_faulting(int block, int which, int* y) { return OPKIT_INTERP_LAUNCH(faulting, 1, block, 0, which, y); }

OPKIT_TEST int run_extra_math(int grid, int block, int n, const float* x, const double* y, float* f, double* d)
{
    return OPKIT_INTERP_LAUNCH(extra_math, grid, block, 0, n, x, y, f, d);
}

// CUDA kernels that tests/gpu/test_interpreter.py runs through opkit's CPU interpreter (g++ against
// opkit/templates/gpu/cuda_interpret.h) and compiles with NVRTC for sm_90: one text both ways.
// No #include: NVRTC compiles it as it is.

extern "C" __global__ void axpy(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Each block sums its blockDim.x (a power of 2, <= 256) elements by a tree in shared memory.
extern "C" __global__ void block_sum(int n, const double* x, double* partial)
{
    __shared__ double s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

extern "C" __global__ void histogram(int n, const int* x, unsigned int* bins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[x[i]], 1u);
}

// Per warp: the sum by shuffles down (lane 0 adds it to *total) and the butterfly sum every lane gets.
extern "C" __global__ void warp_sums(int n, const int* x, int* every_lane, unsigned long long* total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    int w = v;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    for (int mask = 1; mask < 32; mask <<= 1) w += __shfl_xor_sync(0xffffffffu, w, mask);
    if ((threadIdx.x & 31) == 0) atomicAdd(total, (unsigned long long)(long long)v);
    if (i < n) every_lane[i] = w;
}

// Inclusive prefix sums within segments of `width` lanes (shuffle up), and each segment's first value
// broadcast to it (shuffle by index).
extern "C" __global__ void segment_scan(int n, int width, const int* x, int* scan, int* first)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    int lane = threadIdx.x % width;
    for (int d = 1; d < width; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d, width);
        if (lane >= d) v += up;
    }
    int f = __shfl_sync(0xffffffffu, i < n ? x[i] : 0, 0, width);
    if (i < n) {
        scan[i] = v;
        first[i] = f;
    }
}

extern "C" __global__ void votes(int n, const int* x, unsigned int* ballot, int* all, int* any)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n && x[i] != 0;
    unsigned int b = __ballot_sync(0xffffffffu, p);
    int a = __all_sync(0xffffffffu, p), y = __any_sync(0xffffffffu, p);
    if ((threadIdx.x & 31) == 0) {
        int warp = i / 32;
        ballot[warp] = b;
        all[warp] = a;
        any[warp] = y;
    }
}

// Every thread writes its global linear index at its place in a (grid * block)-shaped array.
extern "C" __global__ void coordinates(long long* out)
{
    long long nx = (long long)gridDim.x * blockDim.x, ny = (long long)gridDim.y * blockDim.y;
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    long long z = (long long)blockIdx.z * blockDim.z + threadIdx.z;
    out[(z * ny + y) * nx + x] = ((((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x)
                                  * blockDim.z * blockDim.y * blockDim.x)
                                 + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

// Per block: how many elements are positive, whether all are, whether any is.
extern "C" __global__ void block_votes(int n, const int* x, int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n && x[i] > 0;
    int c = __syncthreads_count(p), a = __syncthreads_and(p), o = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        counts[3 * blockIdx.x] = c;
        counts[3 * blockIdx.x + 1] = a;
        counts[3 * blockIdx.x + 2] = o;
    }
}

// Only lanes 0-15 of each warp take part, with a mask naming them.
extern "C" __global__ void half_warp(const int* x, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((threadIdx.x & 31) < 16) out[i] = __shfl_xor_sync(0x0000ffffu, x[i], 1);
}

// A divergent barrier: threads past n leave before the others' __syncthreads.
extern "C" __global__ void early_exit(int n, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __syncthreads();
    y[i] = 1.0f;
}

// Two barriers, one per branch of a condition that is not uniform in the block.
extern "C" __global__ void two_barriers(float* y)
{
    if (threadIdx.x % 2) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    y[threadIdx.x] = 1.0f;
}

// A shuffle whose mask does not name the caller (lanes 16-31 call with lanes 0-15's mask).
extern "C" __global__ void wrong_mask(int* y)
{
    y[threadIdx.x] = __shfl_sync(0x0000ffffu, (int)threadIdx.x, 0);
}

// Shuffles reading lanes that have left.
extern "C" __global__ void read_exited(int* y)
{
    if (threadIdx.x >= 8) return;
    y[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 8);
}

// An assert that fails for negative elements.
extern "C" __global__ void asserting(int n, const int* x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(x[i] >= 0);
}

extern "C" __global__ void trapping(int which, int* y)
{
    if ((int)threadIdx.x == which) __trap();
    y[threadIdx.x] = 1;
}

// Commutative atomics of every overload: out[0..] of each type, from every element.
extern "C" __global__ void atomics(int n, const int* x, int* i32, unsigned int* u32, unsigned long long* u64,
                                   long long* i64, float* f32, double* f64)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = x[i];
        atomicAdd(&i32[0], v);
        atomicSub(&i32[1], v);
        atomicMax(&i32[2], v);
        atomicMin(&i32[3], v);
        atomicAnd(&i32[4], v);
        atomicOr(&i32[5], v);
        atomicXor(&i32[6], v);
        atomicAdd(&u32[0], (unsigned int)v);
        atomicMax(&u32[1], (unsigned int)v);
        atomicMin(&u32[2], (unsigned int)v);
        atomicInc(&u32[3], 6u);
        atomicDec(&u32[4], 6u);
        atomicAdd(&u64[0], (unsigned long long)(long long)v);
        atomicMax(&u64[1], (unsigned long long)(long long)v);
        atomicMax(&i64[0], (long long)v);
        atomicMin(&i64[1], (long long)v);
        atomicAdd(&f32[0], (float)v);
        atomicAdd(&f64[0], (double)v);
    }
}

extern "C" __global__ void bit_intrinsics(int n, const unsigned int* x, unsigned int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int v = x[i];
    out[8 * i] = __popc(v);
    out[8 * i + 1] = __clz((int)v);
    out[8 * i + 2] = __ffs((int)v);
    out[8 * i + 3] = __brev(v);
    out[8 * i + 4] = __funnelshift_l(v, ~v, v);
    out[8 * i + 5] = __funnelshift_r(v, ~v, v);
    out[8 * i + 6] = __byte_perm(v, ~v, v);
    out[8 * i + 7] = __umulhi(v, v ^ 0x9e3779b9u);
}

// Float-to-integer conversions in the four roundings (saturating), and integer-to-float to nearest.
extern "C" __global__ void conversions(int n, const float* f, const double* d, int* i32, unsigned int* u32,
                                       long long* i64, float* back)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    double y = d[i];
    i32[8 * i] = __float2int_rn(x);
    i32[8 * i + 1] = __float2int_rz(x);
    i32[8 * i + 2] = __float2int_rd(x);
    i32[8 * i + 3] = __float2int_ru(x);
    i32[8 * i + 4] = __double2int_rn(y);
    i32[8 * i + 5] = __double2int_rz(y);
    i32[8 * i + 6] = __double2int_rd(y);
    i32[8 * i + 7] = __double2int_ru(y);
    u32[2 * i] = __float2uint_rn(x);
    u32[2 * i + 1] = __double2uint_rz(y);
    i64[2 * i] = __float2ll_rn(x);
    i64[2 * i + 1] = __double2ll_rd(y);
    back[2 * i] = __int2float_rn(i32[8 * i + 4]);
    back[2 * i + 1] = __ll2float_rn(i64[2 * i + 1]);
}

// __match_any_sync, __match_all_sync, __reduce_*_sync and __syncwarp, per warp, for every lane.
extern "C" __global__ void warp_extras(const int* x, unsigned int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    int all_equal = 0;
    out[9 * i] = __match_any_sync(0xffffffffu, v);
    out[9 * i + 1] = __match_all_sync(0xffffffffu, v, &all_equal);
    out[9 * i + 2] = (unsigned int)all_equal;
    out[9 * i + 3] = (unsigned int)__reduce_add_sync(0xffffffffu, v);
    out[9 * i + 4] = (unsigned int)__reduce_min_sync(0xffffffffu, v);
    out[9 * i + 5] = __reduce_max_sync(0xffffffffu, (unsigned int)v);
    out[9 * i + 6] = __reduce_and_sync(0xffffffffu, (unsigned int)v);
    out[9 * i + 7] = __reduce_or_sync(0xffffffffu, (unsigned int)v) ^ __reduce_xor_sync(0xffffffffu, (unsigned int)v);
    __syncwarp();
    out[9 * i + 8] = (unsigned int)__reduce_max_sync(0xffffffffu, v);
}

// A race: each thread reads its right neighbour's shared slot with no barrier between the write and the read.
extern "C" __global__ void racy_shift(const int* x, int* y)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = x[t];
    y[t] = t + 1 < (int)blockDim.x ? s[t + 1] : 0;
}

__device__ int deep(int n, int* sink)
{
    int buf[1024];
    for (int i = 0; i < 1024; ++i) buf[i] = sink[i];
    return n ? deep(n - 1, sink) + buf[(n * 7) & 1023] : 0;
}

// Faults: 0 an integer division by zero, 1 a write to an address nobody owns, 2 a stack overflow.
extern "C" __global__ void faulting(int which, int* y)
{
    int t = threadIdx.x;
    if (which == 0) y[t] = 10 / (3 - t);
    if (which == 1 && t == 5) ((int*)0)[t + 4] = 1;
    if (which == 2) y[t] = deep(1 << 20, y);
    if (which == 3) y[t] = t;
}

// CUDA's functions that <cmath> lacks.
extern "C" __global__ void extra_math(int n, const float* x, const double* y, float* f, double* d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    f[5 * i] = sinpif(x[i]);
    f[5 * i + 1] = cospif(x[i]);
    f[5 * i + 2] = rsqrtf(fabsf(x[i]));
    f[5 * i + 3] = rcbrtf(x[i]);
    f[5 * i + 4] = normcdff(x[i]);
    d[5 * i] = sinpi(y[i]);
    d[5 * i + 1] = cospi(y[i]);
    d[5 * i + 2] = rsqrt(fabs(y[i]));
    d[5 * i + 3] = rcbrt(y[i]);
    d[5 * i + 4] = normcdf(y[i]);
}

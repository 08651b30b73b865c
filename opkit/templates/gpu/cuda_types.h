// opkit: CUDA's vector types (dim3, uint3, float2, ...) and the launch-configuration check, for host
// code compiled by g++ in both modes (device="cuda" and device="cuda-interpret"), with no CUDA header.
// Layouts and alignments are CUDA's (vector_types.h), so a struct passed by value to a kernel has the
// same bytes on both sides. Pure C++: no Python. Included by opkit_gpu.h and cuda_interpret.h.
#ifndef OPKIT_CUDA_TYPES_H
#define OPKIT_CUDA_TYPES_H
#include <climits>
#include <cstdio>
#include <type_traits>

#define OPKIT_VEC_TYPES(NAME, T, A2, A4) \
    struct NAME##1 { T x; }; \
    struct __attribute__((aligned(A2))) NAME##2 { T x, y; }; \
    struct NAME##3 { T x, y, z; }; \
    struct __attribute__((aligned(A4))) NAME##4 { T x, y, z, w; }; \
    static inline NAME##1 make_##NAME##1(T x) { NAME##1 v; v.x = x; return v; } \
    static inline NAME##2 make_##NAME##2(T x, T y) { NAME##2 v; v.x = x; v.y = y; return v; } \
    static inline NAME##3 make_##NAME##3(T x, T y, T z) { NAME##3 v; v.x = x; v.y = y; v.z = z; return v; } \
    static inline NAME##4 make_##NAME##4(T x, T y, T z, T w) \
    { NAME##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

OPKIT_VEC_TYPES(char, signed char, 2, 4)
OPKIT_VEC_TYPES(uchar, unsigned char, 2, 4)
OPKIT_VEC_TYPES(short, short, 4, 8)
OPKIT_VEC_TYPES(ushort, unsigned short, 4, 8)
OPKIT_VEC_TYPES(int, int, 8, 16)
OPKIT_VEC_TYPES(uint, unsigned int, 8, 16)
OPKIT_VEC_TYPES(long, long, 2 * sizeof(long), 2 * sizeof(long))
OPKIT_VEC_TYPES(ulong, unsigned long, 2 * sizeof(long), 2 * sizeof(long))
OPKIT_VEC_TYPES(longlong, long long, 16, 16)
OPKIT_VEC_TYPES(ulonglong, unsigned long long, 16, 16)
OPKIT_VEC_TYPES(float, float, 8, 16)
OPKIT_VEC_TYPES(double, double, 16, 16)
#undef OPKIT_VEC_TYPES

// dim3: a uint3 whose omitted components are 1 (CUDA's).
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// A launch's grid or block as given (an integer or a dim3), kept in 64 bits so that a negative or too
// large count is refused instead of wrapping around.
struct OpkitGpuDims {
    long long x, y, z;
};

static inline OpkitGpuDims opkit_gpu_dims(dim3 d) { return OpkitGpuDims{d.x, d.y, d.z}; }
static inline OpkitGpuDims opkit_gpu_dims(uint3 d) { return OpkitGpuDims{d.x, d.y, d.z}; }

template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
static inline OpkitGpuDims opkit_gpu_dims(I n)
{
    if (std::is_unsigned<I>::value && (unsigned long long)n > (unsigned long long)LLONG_MAX)
        return OpkitGpuDims{LLONG_MAX, 1, 1};
    return OpkitGpuDims{(long long)n, 1, 1};
}

#define OPKIT_GPU_MAX_THREADS_PER_BLOCK 1024
#define OPKIT_GPU_MAX_SHARED_BYTES (48 * 1024)

// Check a launch as CUDA does: 0 if valid, else the CUDA error's name, with the reason written into
// `why` (at most `size` bytes). The same check runs before a GPU launch and an interpreted one, so
// both modes refuse the same launches with the same message.
static inline const char* opkit_gpu_check_launch(OpkitGpuDims grid, OpkitGpuDims block,
                                                 unsigned long long shared_bytes, char* why, size_t size)
{
    const char* bad = "cudaErrorInvalidConfiguration";
    if (grid.x <= 0 || grid.y <= 0 || grid.z <= 0) {
        snprintf(why, size, "the grid (%lld, %lld, %lld) has a dimension < 1", grid.x, grid.y, grid.z);
        return bad;
    }
    if (grid.x > 2147483647LL || grid.y > 65535 || grid.z > 65535) {
        snprintf(why, size, "the grid (%lld, %lld, %lld) is larger than CUDA's (2147483647, 65535, 65535)",
                 grid.x, grid.y, grid.z);
        return bad;
    }
    if (block.x <= 0 || block.y <= 0 || block.z <= 0) {
        snprintf(why, size, "the block (%lld, %lld, %lld) has a dimension < 1", block.x, block.y, block.z);
        return bad;
    }
    if (block.x > 1024 || block.y > 1024 || block.z > 64
            || block.x * block.y * block.z > OPKIT_GPU_MAX_THREADS_PER_BLOCK) {
        snprintf(why, size, "the block (%lld, %lld, %lld) has %lld threads or a dimension over CUDA's limits "
                 "(at most 1024 threads, x and y <= 1024, z <= 64)",
                 block.x, block.y, block.z, block.x * block.y * block.z);
        return bad;
    }
    if (shared_bytes > OPKIT_GPU_MAX_SHARED_BYTES) {
        snprintf(why, size, "%llu bytes of dynamic shared memory is more than the %d a launch gets",
                 shared_bytes, OPKIT_GPU_MAX_SHARED_BYTES);
        return "cudaErrorInvalidValue";
    }
    return 0;
}

#endif  // OPKIT_CUDA_TYPES_H

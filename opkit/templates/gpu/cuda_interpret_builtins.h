// opkit's CUDA interpreter: the device functions CUDA gives kernels (warp collectives, atomics, integer
// and exactly rounded float intrinsics, min/max, __ldg), for g++. Included by cuda_interpret.h.
// The approximate intrinsics (__expf, __fdividef, ...) and the directed roundings (_rz, _ru, _rd) are
// not here: their results differ from the host's, so opkit.gpu.interpret.refusals refuses them. A function
// added here is added to the table of opkit/gpu/interpret/builtins.py too (tests/gpu/test_interpreter_table.py).

namespace opkit_interp {

template <class T>
static inline uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "a warp collective takes a value of at most 8 bytes");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}

template <class T>
static inline T from_bits(uint64_t bits)
{
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

static inline uint64_t warp(int kind, unsigned mask, uint64_t value, int lane_arg, int width, const char* file,
                            int line)
{
    return wait_at(kind, AT_WARP, mask, value, lane_arg, width, file, line, 0);
}

}  // namespace opkit_interp

#define OPKIT_SITE const char* file = __builtin_FILE(), int line = __builtin_LINE()

static inline void __syncwarp(unsigned mask = 0xffffffffu, OPKIT_SITE)
{
    opkit_interp::warp(opkit_interp::SYNCWARP, mask, 0, 0, 32, file, line);
}

template <class T>
static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize, OPKIT_SITE)
{
    return opkit_interp::from_bits<T>(opkit_interp::warp(opkit_interp::SHFL_IDX, mask, opkit_interp::to_bits(var),
                                                         src_lane, width, file, line));
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, OPKIT_SITE)
{
    return opkit_interp::from_bits<T>(opkit_interp::warp(opkit_interp::SHFL_UP, mask, opkit_interp::to_bits(var),
                                                         (int)delta, width, file, line));
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, OPKIT_SITE)
{
    return opkit_interp::from_bits<T>(opkit_interp::warp(opkit_interp::SHFL_DOWN, mask,
                                                         opkit_interp::to_bits(var), (int)delta, width, file, line));
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, OPKIT_SITE)
{
    return opkit_interp::from_bits<T>(opkit_interp::warp(opkit_interp::SHFL_XOR, mask, opkit_interp::to_bits(var),
                                                         lane_mask, width, file, line));
}

static inline unsigned __ballot_sync(unsigned mask, int predicate, OPKIT_SITE)
{
    return (unsigned)opkit_interp::warp(opkit_interp::BALLOT, mask, predicate != 0, 0, 32, file, line);
}
static inline int __all_sync(unsigned mask, int predicate, OPKIT_SITE)
{
    return (int)opkit_interp::warp(opkit_interp::ALL, mask, predicate != 0, 0, 32, file, line);
}
static inline int __any_sync(unsigned mask, int predicate, OPKIT_SITE)
{
    return (int)opkit_interp::warp(opkit_interp::ANY, mask, predicate != 0, 0, 32, file, line);
}
template <class T>
static inline unsigned __match_any_sync(unsigned mask, T value, OPKIT_SITE)
{
    return (unsigned)opkit_interp::warp(opkit_interp::MATCH_ANY, mask, opkit_interp::to_bits(value), 0, 32, file,
                                        line);
}
template <class T>
static inline unsigned __match_all_sync(unsigned mask, T value, int* pred, OPKIT_SITE)
{
    unsigned r = (unsigned)opkit_interp::warp(opkit_interp::MATCH_ALL, mask, opkit_interp::to_bits(value), 0, 32,
                                              file, line);
    *pred = r != 0;
    return r;
}

#define OPKIT_REDUCE(NAME, T, KIND) \
    static inline T NAME(unsigned mask, T value, OPKIT_SITE) \
    { return (T)(uint32_t)opkit_interp::warp(opkit_interp::KIND, mask, (uint32_t)value, 0, 32, file, line); }
OPKIT_REDUCE(__reduce_add_sync, unsigned, REDUCE_ADD)
OPKIT_REDUCE(__reduce_add_sync, int, REDUCE_ADD)
OPKIT_REDUCE(__reduce_min_sync, unsigned, REDUCE_UMIN)
OPKIT_REDUCE(__reduce_min_sync, int, REDUCE_MIN)
OPKIT_REDUCE(__reduce_max_sync, unsigned, REDUCE_UMAX)
OPKIT_REDUCE(__reduce_max_sync, int, REDUCE_MAX)
OPKIT_REDUCE(__reduce_and_sync, unsigned, REDUCE_AND)
OPKIT_REDUCE(__reduce_or_sync, unsigned, REDUCE_OR)
OPKIT_REDUCE(__reduce_xor_sync, unsigned, REDUCE_XOR)
#undef OPKIT_REDUCE
#undef OPKIT_SITE

// ---- memory fences and cached loads: the interpreter's memory is the host's, coherent ----
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T> static inline T __ldg(const T* p) { return *p; }
template <class T> static inline T __ldca(const T* p) { return *p; }
template <class T> static inline T __ldcg(const T* p) { return *p; }
template <class T> static inline T __ldcs(const T* p) { return *p; }
template <class T> static inline T __ldlu(const T* p) { return *p; }
template <class T> static inline T __ldcv(const T* p) { return *p; }
template <class T> static inline void __stwb(T* p, T v) { *p = v; }
template <class T> static inline void __stcg(T* p, T v) { *p = v; }
template <class T> static inline void __stcs(T* p, T v) { *p = v; }
template <class T> static inline void __stwt(T* p, T v) { *p = v; }

// ---- atomics: CUDA's overloads, each a real host atomic (returns the old value) ----
namespace opkit_interp {
template <class T, class F>
static inline T atomic_update(T* address, F f)
{
    T old;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    T desired = f(old);
    while (!__atomic_compare_exchange(address, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        desired = f(old);
    return old;
}
}  // namespace opkit_interp

#define OPKIT_ATOMIC(NAME, T, EXPR) \
    static inline T NAME(T* address, T val) \
    { return opkit_interp::atomic_update(address, [val](T old) -> T { (void)old; return EXPR; }); }
#define OPKIT_ATOMIC_INTEGER(T) \
    OPKIT_ATOMIC(atomicAdd, T, (T)(old + val)) \
    OPKIT_ATOMIC(atomicExch, T, val) \
    OPKIT_ATOMIC(atomicMin, T, val < old ? val : old) \
    OPKIT_ATOMIC(atomicMax, T, val > old ? val : old) \
    OPKIT_ATOMIC(atomicAnd, T, (T)(old & val)) \
    OPKIT_ATOMIC(atomicOr, T, (T)(old | val)) \
    OPKIT_ATOMIC(atomicXor, T, (T)(old ^ val)) \
    static inline T atomicCAS(T* address, T compare, T val) \
    { \
        __atomic_compare_exchange(address, &compare, &val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return compare; \
    }
OPKIT_ATOMIC_INTEGER(int)
OPKIT_ATOMIC_INTEGER(unsigned int)
OPKIT_ATOMIC_INTEGER(unsigned long long)
OPKIT_ATOMIC(atomicMin, long long, val < old ? val : old)
OPKIT_ATOMIC(atomicMax, long long, val > old ? val : old)
OPKIT_ATOMIC(atomicAnd, long long, old & val)
OPKIT_ATOMIC(atomicOr, long long, old | val)
OPKIT_ATOMIC(atomicXor, long long, old ^ val)
OPKIT_ATOMIC(atomicSub, int, (int)((unsigned)old - (unsigned)val))
OPKIT_ATOMIC(atomicSub, unsigned int, old - val)
OPKIT_ATOMIC(atomicAdd, float, old + val)
OPKIT_ATOMIC(atomicAdd, double, old + val)
OPKIT_ATOMIC(atomicExch, float, val)
OPKIT_ATOMIC(atomicInc, unsigned int, old >= val ? 0u : old + 1u)
OPKIT_ATOMIC(atomicDec, unsigned int, (old == 0u || old > val) ? val : old - 1u)
static inline unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short val)
{
    __atomic_compare_exchange(address, &compare, &val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
#undef OPKIT_ATOMIC_INTEGER
#undef OPKIT_ATOMIC
// The _block and _system scopes are the same memory here.
#define OPKIT_SCOPED(NAME) \
    template <class... A> static inline auto NAME##_block(A... a) -> decltype(NAME(a...)) { return NAME(a...); } \
    template <class... A> static inline auto NAME##_system(A... a) -> decltype(NAME(a...)) { return NAME(a...); }
OPKIT_SCOPED(atomicAdd)
OPKIT_SCOPED(atomicSub)
OPKIT_SCOPED(atomicExch)
OPKIT_SCOPED(atomicMin)
OPKIT_SCOPED(atomicMax)
OPKIT_SCOPED(atomicInc)
OPKIT_SCOPED(atomicDec)
OPKIT_SCOPED(atomicCAS)
OPKIT_SCOPED(atomicAnd)
OPKIT_SCOPED(atomicOr)
OPKIT_SCOPED(atomicXor)
#undef OPKIT_SCOPED

// ---- min and max: CUDA's overloads (the usual arithmetic conversions; fmin/fmax for floating point) ----
template <class A, class B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if (std::is_floating_point<C>::value) return (C)std::fmin((C)a, (C)b);
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    if (std::is_floating_point<C>::value) return (C)std::fmax((C)a, (C)b);
    return (C)a > (C)b ? (C)a : (C)b;
}
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- integer intrinsics ----
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __mul24(int a, int b)
{
    return (int)((long long)((a << 8) >> 8) * (long long)((b << 8) >> 8));
}
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }

static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift & 31)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift < 32 ? shift : 32)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift < 32 ? shift : 32));
}
// PTX's prmt.b32 (generic mode): byte n of the result is byte s<4n+2:4n> of y:x, or, where bit 4n+3 of s is set,
// that byte's sign bit replicated.
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; ++n) {
        unsigned selector = (s >> (4 * n)) & 15u;
        unsigned byte = (unsigned)((bytes >> (8 * (selector & 7u))) & 0xffu);
        if (selector & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        r |= byte << (8 * n);
    }
    return r;
}
static inline unsigned __sad(int x, int y, unsigned z) { return (unsigned)(x > y ? x - y : y - x) + z; }
static inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }

// ---- conversions: float to integer in each rounding, saturating as CUDA's (NaN gives 0); integer to float
// rounding to nearest ----
namespace opkit_interp {
template <class I, class F>
static inline I saturate(F v)
{
    if (v != v) return 0;
    if (v <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (v >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)v;
}
}  // namespace opkit_interp
#define OPKIT_TO_INTEGER(F, FNAME, I, INAME) \
    static inline I __##FNAME##2##INAME##_rn(F x) { return opkit_interp::saturate<I>(std::nearbyint(x)); } \
    static inline I __##FNAME##2##INAME##_rz(F x) { return opkit_interp::saturate<I>(std::trunc(x)); } \
    static inline I __##FNAME##2##INAME##_rd(F x) { return opkit_interp::saturate<I>(std::floor(x)); } \
    static inline I __##FNAME##2##INAME##_ru(F x) { return opkit_interp::saturate<I>(std::ceil(x)); }
OPKIT_TO_INTEGER(float, float, int, int)
OPKIT_TO_INTEGER(float, float, unsigned int, uint)
OPKIT_TO_INTEGER(float, float, long long, ll)
OPKIT_TO_INTEGER(float, float, unsigned long long, ull)
OPKIT_TO_INTEGER(double, double, int, int)
OPKIT_TO_INTEGER(double, double, unsigned int, uint)
OPKIT_TO_INTEGER(double, double, long long, ll)
OPKIT_TO_INTEGER(double, double, unsigned long long, ull)
#undef OPKIT_TO_INTEGER
#define OPKIT_TO_FLOAT(I, INAME, F, FNAME) static inline F __##INAME##2##FNAME##_rn(I x) { return (F)x; }
OPKIT_TO_FLOAT(int, int, float, float)
OPKIT_TO_FLOAT(unsigned int, uint, float, float)
OPKIT_TO_FLOAT(long long, ll, float, float)
OPKIT_TO_FLOAT(unsigned long long, ull, float, float)
OPKIT_TO_FLOAT(int, int, double, double)
OPKIT_TO_FLOAT(unsigned int, uint, double, double)
OPKIT_TO_FLOAT(long long, ll, double, double)
OPKIT_TO_FLOAT(unsigned long long, ull, double, double)
OPKIT_TO_FLOAT(double, double, float, float)
#undef OPKIT_TO_FLOAT

// ---- reinterpretations ----
static inline int __float_as_int(float x) { return opkit_interp::from_bits<int>(opkit_interp::to_bits(x)); }
static inline unsigned __float_as_uint(float x) { return opkit_interp::from_bits<unsigned>(opkit_interp::to_bits(x)); }
static inline float __int_as_float(int x) { return opkit_interp::from_bits<float>(opkit_interp::to_bits(x)); }
static inline float __uint_as_float(unsigned x) { return opkit_interp::from_bits<float>(opkit_interp::to_bits(x)); }
static inline long long __double_as_longlong(double x)
{
    return opkit_interp::from_bits<long long>(opkit_interp::to_bits(x));
}
static inline double __longlong_as_double(long long x)
{
    return opkit_interp::from_bits<double>(opkit_interp::to_bits(x));
}

// ---- exactly rounded float intrinsics (round to nearest: the host's IEEE operations, not contracted) ----
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float saturate(float x) { return __saturatef(x); }
// CUDA's functions that <cmath> lacks, computed in a wider type and rounded once, so that they stay within
// CUDA's ulp bounds (sinpi/cospi reduce their argument exactly: sinpi(1) is 0, not sin(3.14159...)).
namespace opkit_interp {
static inline long double sinpi(long double x)
{
    if (std::isinf(x)) return std::nanl("");
    long double r = std::fmod(x, 2.0L);  // exact
    if (r == 0.0L || r == 1.0L || r == -1.0L) return std::copysign(0.0L, x);
    return std::sin(3.141592653589793238462643383279502884L * r);
}
static inline long double cospi(long double x)
{
    if (std::isinf(x)) return std::nanl("");
    long double r = std::fmod(std::fabs(x), 2.0L);
    if (r == 0.5L || r == 1.5L) return 0.0L;
    return std::cos(3.141592653589793238462643383279502884L * r);
}
static inline long double normcdf(long double x) { return 0.5L * std::erfc(-x * 0.707106781186547524400844362104849039L); }
}  // namespace opkit_interp
static inline float rsqrtf(float x) { return (float)(1.0 / std::sqrt((double)x)); }
static inline double rsqrt(double x) { return (double)(1.0L / std::sqrt((long double)x)); }
static inline float rcbrtf(float x) { return (float)(1.0 / std::cbrt((double)x)); }
static inline double rcbrt(double x) { return (double)(1.0L / std::cbrt((long double)x)); }
static inline float sinpif(float x) { return (float)opkit_interp::sinpi(x); }
static inline double sinpi(double x) { return (double)opkit_interp::sinpi(x); }
static inline float cospif(float x) { return (float)opkit_interp::cospi(x); }
static inline double cospi(double x) { return (double)opkit_interp::cospi(x); }
static inline float normcdff(float x) { return (float)opkit_interp::normcdf(x); }
static inline double normcdf(double x) { return (double)opkit_interp::normcdf(x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }

// opkit's CUDA interpreter (device="cuda-interpret"): CUDA's built-ins for g++, so that the text of a
// `kernels` section compiles as C++ and its kernels run on the CPU (as Triton's TRITON_INTERPRET=1 or
// numba's CUDA simulator). Pure C++: no Python (opkit_gpu.h turns its errors into Python exceptions).
//
// How a launch runs: the blocks one after another; the threads of a block as cooperative fibers
// (cuda_interpret_switch.h), each starting on a fiber of a reused pool and switching only at a barrier
// (__syncthreads*, __syncwarp) or a warp collective (__shfl*_sync, __ballot_sync, __all_sync, ...).
// Between two such points a thread runs alone, so a barrier-free kernel costs a call per thread.
// What CUDA leaves undefined and a GPU would answer differently is refused with an error naming it:
// a __syncthreads that not every thread of the block reaches (an exited thread, another call site),
// a warp collective whose mask omits the caller or names a thread waiting elsewhere, a shuffle that
// reads a lane that is not taking part, a width that is not a power of 2 <= 32. The limits are in
// docs/gpu_interpreter.md; opkit.gpu.interpret.refusals refuses the constructs it cannot run. Every
// built-in defined here is listed in opkit/gpu/interpret/builtins.py, the interpreter's one table, whose
// rendering (cuda_interpret_table.h, included last) checks that each is defined.
#ifndef OPKIT_CUDA_INTERPRET_H
#define OPKIT_CUDA_INTERPRET_H
#include <cmath>
#include <cassert>
#include <cstdarg>
#include <math.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <csignal>
#include <mutex>
#include <pthread.h>
#include "cuda_types.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
// One copy per block: blocks run one at a time on an OS thread, and a block's fibers share its TLS.
#define __shared__ static thread_local

static constexpr int warpSize = 32;

namespace opkit_interp {

enum State { UNSTARTED, RUNNING, DONE, AT_BARRIER, AT_WARP, FAILED };
enum Kind {
    SYNC, SYNC_COUNT, SYNC_AND, SYNC_OR, SYNCWARP, SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ALL, ANY,
    MATCH_ANY, MATCH_ALL, REDUCE_ADD, REDUCE_MIN, REDUCE_MAX, REDUCE_UMIN, REDUCE_UMAX, REDUCE_AND, REDUCE_OR,
    REDUCE_XOR
};

static inline const char* kind_name(int kind)
{
    static const char* const names[] = {
        "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
        "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
        "__all_sync", "__any_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
        "__reduce_min_sync", "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync",
        "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync"};
    return names[kind];
}

#include "cuda_interpret_switch.h"

struct Fiber {
    Context context;
    char* stack;
    bool busy;
};

struct Thread {
    uint3 idx;
    int linear;
    int state;
    int kind;             // the barrier or collective it waits at
    const char* file;
    int line;
    int site;             // a barrier's call site (__COUNTER__)
    unsigned mask;
    int lane_arg;         // a shuffle's source lane, delta or lane mask
    int width;
    uint64_t value;       // what it brings (a shuffled value, a predicate)
    uint64_t result;      // what it gets back
    Fiber* fiber;
};

struct Launch {
    const char* kernel;
    void (*body)(void*);
    void* closure;
    dim3 grid_dim, block_dim;
    uint3 block_idx;
    std::vector<Thread> threads;
    int next_start;
    bool reverse;         // OPKIT_CUDA_INTERPRET_ORDER=reverse: threads start and resume last first
    bool failed;
    std::string error;
    Context scheduler;
};

static const size_t FIBER_STACK = 1024 * 1024;  // virtual: pages are touched only as used

static thread_local Launch* t_launch = nullptr;
static thread_local Thread* t_thread = nullptr;
static thread_local Fiber* t_fiber = nullptr;
// The fibers of this OS thread, reused by its launches; their stacks are unmapped when the thread ends.
struct FiberPool : std::vector<Fiber*> {
    ~FiberPool()
    {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        for (Fiber* f : *this) {
            munmap(f->stack - page, FIBER_STACK + page);
            delete f;
        }
    }
};
static thread_local FiberPool t_pool;
static thread_local std::vector<unsigned char> t_dynamic_shared;
static thread_local std::string t_last_error;

// The body of every fiber: start the block's next unstarted thread until none is left, then go idle
// (back to the scheduler, which resumes it for a later block or launch).
static void fiber_main()
{
    for (;;) {
        Launch* L = t_launch;
        Fiber* self = t_fiber;
        while (!L->failed && L->next_start < (int)L->threads.size()) {
            int k = L->next_start++;
            Thread* t = &L->threads[L->reverse ? L->threads.size() - 1 - k : k];
            t->fiber = self;
            t->state = RUNNING;
            t_thread = t;
            L->body(L->closure);
            t->state = DONE;
        }
        self->busy = false;
        switch_context(&self->context, &L->scheduler);
    }
}

static inline void fiber_reset(Fiber* f)
{
    make_context(&f->context, f->stack, FIBER_STACK, fiber_main);
    f->busy = false;
}

static inline Fiber* idle_fiber()
{
    for (Fiber* f : t_pool)
        if (!f->busy) return f;
    // A guard page below each stack: an overflow faults instead of writing into another fiber's stack.
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void* memory = mmap(nullptr, FIBER_STACK + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (memory == MAP_FAILED) return nullptr;
    mprotect(memory, page, PROT_NONE);
    Fiber* f = new Fiber();
    f->stack = (char*)memory + page;
    fiber_reset(f);
    t_pool.push_back(f);
    return f;
}

static inline void enter(Fiber* f, Thread* t)
{
    f->busy = true;
    t_fiber = f;
    t_thread = t;
    switch_context(&t_launch->scheduler, &f->context);
}

// Record an error of the launch (the first one wins).
__attribute__((format(printf, 1, 2))) static inline void fail(const char* format, ...)
{
    Launch* L = t_launch;
    if (L->failed) return;
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    L->failed = true;
    L->error = text;
}

// The calling thread stops here until the scheduler releases it (or the launch fails).
static inline uint64_t wait_at(int kind, int state, unsigned mask, uint64_t value, int lane_arg, int width,
                               const char* file, int line, int site)
{
    Thread* t = t_thread;
    t->kind = kind;
    t->state = state;
    t->mask = mask;
    t->value = value;
    t->lane_arg = lane_arg;
    t->width = width;
    t->file = file;
    t->line = line;
    t->site = site;
    switch_context(&t->fiber->context, &t_launch->scheduler);
    return t->result;
}

static inline std::string where(const Thread& t)
{
    char text[160];
    snprintf(text, sizeof text, "thread (%u, %u, %u)", t.idx.x, t.idx.y, t.idx.z);
    return text;
}

static inline std::string block_name()
{
    Launch* L = t_launch;
    char text[200];
    snprintf(text, sizeof text, "kernel %s, block (%u, %u, %u)", L->kernel, L->block_idx.x, L->block_idx.y,
             L->block_idx.z);
    return text;
}

// The calling thread stops for good and the launch fails with `message` (__trap, a failed assert).
[[noreturn]] static inline void abort_thread(const std::string& message)
{
    Thread* t = t_thread;
    fail("%s (%s, %s)", message.c_str(), block_name().c_str(), where(*t).c_str());
    t->state = FAILED;
    switch_context(&t->fiber->context, &t_launch->scheduler);
    std::abort();  // never resumed: the scheduler resets the fiber
}

// A kernel's assert: CUDA's cudaErrorAssert when it fails in a kernel; outside kernels (host code) the C
// library's assert, which NDEBUG turns off.
static inline void assert_failed(const char* expression, const char* file, int line, const char* function)
{
    if (!t_launch) {
#ifndef NDEBUG
        fprintf(stderr, "%s:%d: %s: Assertion `%s' failed.\n", file, line, function, expression);
        abort();
#endif
        return;
    }
    char text[600];
    snprintf(text, sizeof text, "%s:%d: cudaErrorAssert: device-side assertion `%s` failed in %s", file, line,
             expression, function);
    abort_thread(text);
}

#include "cuda_interpret_warp.h"

// Every live thread waits at a __syncthreads*: release them if all wait at the same one, else fail.
static inline bool release_barrier(Launch* L)
{
    const Thread* first = nullptr;
    const Thread* exited = nullptr;
    for (const Thread& t : L->threads) {
        if (t.state == DONE && !exited) exited = &t;
        if (t.state == AT_BARRIER && !first) first = &t;
    }
    if (!first) return false;
    if (exited) {
        fail("%s:%d: %s in %s is not reached by every thread of the block: %s exited while %s waits there "
             "(undefined in CUDA: a GPU may hang or go on with a wrong result)", first->file, first->line,
             kind_name(first->kind), block_name().c_str(), where(*exited).c_str(), where(*first).c_str());
        return false;
    }
    uint64_t count = 0;
    for (const Thread& t : L->threads) {
        if (t.kind != first->kind || t.line != first->line || t.site != first->site || std::strcmp(t.file, first->file) != 0) {
            fail("%s:%d: divergent barrier in %s: %s waits at the %s at %s:%d while %s waits at %s %s at %s:%d "
                 "(undefined in CUDA: every thread of a block must reach the same __syncthreads)",
                 first->file, first->line, block_name().c_str(), where(*first).c_str(), kind_name(first->kind),
                 first->file, first->line, where(t).c_str(), t.line == first->line ? "another" : "the",
                 kind_name(t.kind), t.file, t.line);
            return false;
        }
        count += t.value != 0;
    }
    uint64_t n = L->threads.size();
    uint64_t result = first->kind == SYNC_COUNT ? count : first->kind == SYNC_AND ? count == n : count != 0;
    for (Thread& t : L->threads) {
        t.result = result;
        t.state = RUNNING;
    }
    size_t n_threads = L->threads.size();
    for (size_t k = 0; k < n_threads && !L->failed; ++k) {
        Thread& t = L->threads[L->reverse ? n_threads - 1 - k : k];
        enter(t.fiber, &t);
    }
    return true;
}

#include "cuda_interpret_faults.h"

static inline void abandon_fibers()
{
    for (Fiber* f : t_pool)
        if (f->busy) fiber_reset(f);
}

// Run one block: 0 on success, else -1 with t_launch->error set.
static inline int run_block(Launch* L)
{
    for (Thread& t : L->threads) t.state = UNSTARTED;
    L->next_start = 0;
    for (;;) {
        while (!L->failed && L->next_start < (int)L->threads.size()) {
            Fiber* f = idle_fiber();
            if (!f) {
                fail("%s: no memory for the stack of another thread", block_name().c_str());
                break;
            }
            enter(f, nullptr);
        }
        if (!L->failed && release_warps(L)) continue;
        if (!L->failed && release_barrier(L)) continue;
        if (L->failed) {
            abandon_fibers();
            return -1;
        }
        return 0;
    }
}

static inline void* dynamic_shared() { return t_dynamic_shared.data(); }

#include "cuda_interpret_launch.h"

}  // namespace opkit_interp

#define threadIdx (::opkit_interp::t_thread->idx)
#define blockIdx (::opkit_interp::t_launch->block_idx)
#define blockDim (::opkit_interp::t_launch->block_dim)
#define gridDim (::opkit_interp::t_launch->grid_dim)

// Launch a kernel (a function) by name in a plain C++ program: 0, or -1 with opkit_interp::last_error().
#define OPKIT_INTERP_LAUNCH(kernel, grid, block, shared_bytes, ...) \
    (::opkit_interp::launch(#kernel, kernel, grid, block, shared_bytes, ##__VA_ARGS__))

// A barrier is named by its call site (__COUNTER__ tells apart two on one line): every thread of the
// block must wait at the same one.
#define OPKIT_BARRIER(KIND, PREDICATE) \
    (::opkit_interp::wait_at(::opkit_interp::KIND, ::opkit_interp::AT_BARRIER, 0, (PREDICATE) != 0, 0, 0, \
                             __FILE__, __LINE__, __COUNTER__))
#define __syncthreads() ((void)OPKIT_BARRIER(SYNC, 0))
#define __syncthreads_count(predicate) ((int)OPKIT_BARRIER(SYNC_COUNT, predicate))
#define __syncthreads_and(predicate) ((int)OPKIT_BARRIER(SYNC_AND, predicate))
#define __syncthreads_or(predicate) ((int)OPKIT_BARRIER(SYNC_OR, predicate))

#include "cuda_interpret_builtins.h"

// assert in a kernel fails the launch as on a GPU (cudaErrorAssert), whether or not NDEBUG is defined (NVRTC
// does not define it). Host code's asserts evaluate their expression; a failure there is the C library's.
#include <cassert>  // first, so that including it again keeps opkit's assert below
#undef assert
#define assert(expression) \
    ((expression) ? (void)0 : ::opkit_interp::assert_failed(#expression, __FILE__, __LINE__, __func__))
#define __trap() \
    (::opkit_interp::abort_thread(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                  ": cudaErrorLaunchFailure: __trap() was called"))

#include "cuda_interpret_table.h"

#endif  // OPKIT_CUDA_INTERPRET_H

// opkit's CUDA interpreter: a launch (its arguments' types, its checks, its blocks one after another).
// Included by cuda_interpret.h inside namespace opkit_interp.

// Arguments: a kernel's parameter takes an argument of exactly its type (cv aside), or, for a pointer,
// any pointer whose pointee is the same type or void (a device pointer is a void* on the host). On a GPU,
// cuLaunchKernel copies each argument's bytes as the parameter's type: an int given for a long long,
// or an int for a float, would be garbage there. The interpreter refuses it at compile time.
template <class P, class A>
struct arg_ok {
    typedef typename std::remove_cv<typename std::remove_reference<A>::type>::type Given;
    typedef typename std::decay<Given>::type Decayed;
    template <class X> using pointee = typename std::remove_cv<typename std::remove_pointer<X>::type>::type;
    static constexpr bool value = std::is_pointer<P>::value
        ? (std::is_null_pointer<Decayed>::value
           || (std::is_pointer<Decayed>::value
               && (std::is_void<pointee<Decayed>>::value
                   || std::is_same<pointee<Decayed>, pointee<P>>::value)))
        : std::is_same<Decayed, typename std::remove_cv<P>::type>::value;
};

template <class P, class A>
static inline P arg_cast(A&& a, std::true_type) { return (P)(a); }
template <class P, class A>
static inline P arg_cast(A&& a, std::false_type) { return a; }

template <class... P>
struct Closure {
    void (*kernel)(P...);
    std::tuple<typename std::remove_cv<P>::type...> values;
    static void call(void* self)
    {
        Closure* c = (Closure*)self;
        std::apply(c->kernel, c->values);  // each thread gets its own copy of the arguments
    }
};

// The __launch_bounds__ maximum of each kernel that declares one (registered when the module loads, by the
// code opkit.gpu.interpret.refusals.interpretable_text adds after the kernel).
struct Bounds {
    const void* kernel;
    long long max_threads;
};

static inline std::vector<Bounds>& bounds_table()
{
    static std::vector<Bounds> table;
    return table;
}

static inline int launch_bounds(const void* kernel, long long max_threads)
{
    bounds_table().push_back(Bounds{kernel, max_threads});
    return 0;
}

static inline int run(const char* kernel, const void* address, void (*body)(void*), void* closure, OpkitGpuDims grid,
                      OpkitGpuDims block, unsigned long long shared_bytes)
{
    char why[400];
    const char* error = opkit_gpu_check_launch(grid, block, shared_bytes, why, sizeof why);
    if (error) {
        t_last_error = std::string(error) + ": kernel " + kernel + " cannot be launched: " + why;
        return -1;
    }
    for (const Bounds& b : bounds_table())
        if (b.kernel == address && block.x * block.y * block.z > b.max_threads) {
            snprintf(why, sizeof why, "its __launch_bounds__ allows %lld threads per block, the launch has %lld",
                     b.max_threads, block.x * block.y * block.z);
            t_last_error = std::string("cudaErrorLaunchOutOfResources: kernel ") + kernel + " cannot be launched: "
                + why;
            return -1;
        }
    if (t_launch) {
        t_last_error = std::string("kernel ") + kernel + " was launched from inside a kernel (dynamic "
            "parallelism), which the interpreter does not run";
        return -1;
    }
    t_dynamic_shared.assign((size_t)shared_bytes + 16, 0);
    Launch L;
    L.kernel = kernel;
    L.body = body;
    L.closure = closure;
    L.grid_dim = dim3((unsigned)grid.x, (unsigned)grid.y, (unsigned)grid.z);
    L.block_dim = dim3((unsigned)block.x, (unsigned)block.y, (unsigned)block.z);
    L.failed = false;
    const char* order = getenv("OPKIT_CUDA_INTERPRET_ORDER");
    L.reverse = order && std::strcmp(order, "reverse") == 0;
    for (unsigned z = 0; z < L.block_dim.z; ++z)
        for (unsigned y = 0; y < L.block_dim.y; ++y)
            for (unsigned x = 0; x < L.block_dim.x; ++x) {
                Thread t = Thread();
                t.idx = uint3{x, y, z};
                t.linear = (int)L.threads.size();
                L.threads.push_back(t);
            }
    t_launch = &L;
    catch_faults(true);
    int status = 0;
    for (unsigned bz = 0; bz < L.grid_dim.z && !status; ++bz)
        for (unsigned by = 0; by < L.grid_dim.y && !status; ++by)
            for (unsigned bx = 0; bx < L.grid_dim.x && !status; ++bx) {
                L.block_idx = uint3{bx, by, bz};
                status = run_block(&L);
            }
    catch_faults(false);
    t_launch = nullptr;
    t_thread = nullptr;
    if (status) t_last_error = L.error;
    return status;
}

// Launch `kernel` on the CPU: 0 on success, else -1 with the reason in last_error().
template <class... P, class G, class B, class... A>
static inline int launch(const char* name, void (*kernel)(P...), G grid, B block, unsigned long long shared_bytes,
                         A&&... args)
{
    static_assert(sizeof...(P) == sizeof...(A), "OPKIT_LAUNCH: the kernel takes another number of arguments");
    static_assert((arg_ok<P, A>::value && ...),
                  "OPKIT_LAUNCH: an argument's type differs from the kernel parameter's (a GPU would read its "
                  "bytes as the parameter's type): cast it to the parameter's type");
    Closure<P...> closure{kernel, std::tuple<typename std::remove_cv<P>::type...>(
        arg_cast<P>(std::forward<A>(args), std::is_pointer<P>())...)};
    return run(name, (const void*)kernel, &Closure<P...>::call, &closure, opkit_gpu_dims(grid), opkit_gpu_dims(block),
               shared_bytes);
}

static inline const char* last_error() { return t_last_error.c_str(); }

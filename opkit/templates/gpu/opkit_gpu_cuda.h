// opkit_gpu.h's cuda mode: CuPy arrays through __cuda_array_interface__, allocation through
// opkit.gpu.runtime (CuPy's pool), launches through the driver API's cuLaunchKernel, found with dlopen:
// the module needs no CUDA header and no CUDA library at build time. Included by opkit_gpu.h.
#include <dlfcn.h>

typedef int OpkitCUresult;
typedef struct OpkitCUfunc_st* OpkitCUfunction;
typedef struct OpkitCUstream_st* OpkitCUstream;
typedef OpkitCUresult (*OpkitCuLaunchKernel)(OpkitCUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                             unsigned block_x, unsigned block_y, unsigned block_z,
                                             unsigned shared_bytes, OpkitCUstream stream, void** params,
                                             void** extra);
typedef OpkitCUresult (*OpkitCuGetErrorName)(OpkitCUresult error, const char** name);

// A call of opkit.gpu.runtime.<name>(*args): a new reference, or NULL with the exception set.
static inline PyObject* opkit_gpu_runtime_call(const char* name, PyObject* args)
{
    static PyObject* runtime = NULL;
    if (!args) return NULL;
    if (!runtime && !(runtime = PyImport_ImportModule("opkit.gpu.runtime"))) {
        Py_DECREF(args);
        return NULL;
    }
    PyObject* function = PyObject_GetAttrString(runtime, name);
    PyObject* result = function ? PyObject_CallObject(function, args) : NULL;
    Py_XDECREF(function);
    Py_DECREF(args);
    return result;
}

// numpy's type number of a __cuda_array_interface__ typestr ("<f4", "|b1", ...), or -1 (exception set).
static inline int opkit_gpu_typenum(const char* typestr)
{
    static const struct { char kind; int size; int typenum; } known[] = {
        {'b', 1, NPY_BOOL}, {'i', 1, NPY_INT8}, {'i', 2, NPY_INT16}, {'i', 4, NPY_INT32}, {'i', 8, NPY_INT64},
        {'u', 1, NPY_UINT8}, {'u', 2, NPY_UINT16}, {'u', 4, NPY_UINT32}, {'u', 8, NPY_UINT64},
        {'f', 2, NPY_FLOAT16}, {'f', 4, NPY_FLOAT32}, {'f', 8, NPY_FLOAT64}, {'c', 8, NPY_COMPLEX64},
        {'c', 16, NPY_COMPLEX128}};
    if (strlen(typestr) >= 3 && (typestr[0] == '<' || typestr[0] == '|' || typestr[0] == '=')) {
        char* end;
        long size = strtol(typestr + 2, &end, 10);
        for (size_t i = 0; *end == '\0' && i < sizeof known / sizeof known[0]; ++i)
            if (known[i].kind == typestr[1] && known[i].size == size) return known[i].typenum;
    }
    PyErr_Format(PyExc_TypeError, "a GPU array's typestr %s is not a native-order bool, integer, float or "
                 "complex type", typestr);
    return -1;
}

static inline int opkit_gpu_intp_tuple(PyObject* tuple, npy_intp* out, int n, const char* what)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != n) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__'s %s is not a tuple of %d integers", what, n);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        out[i] = (npy_intp)PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, i));
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static inline int opkit_gpu_from_interface(PyObject* o, PyObject* cai, OpkitGpuArray* out)
{
    PyObject* shape = PyDict_GetItemString(cai, "shape");
    PyObject* typestr = PyDict_GetItemString(cai, "typestr");
    PyObject* data = PyDict_GetItemString(cai, "data");
    PyObject* strides = PyDict_GetItemString(cai, "strides");
    PyObject* mask = PyDict_GetItemString(cai, "mask");
    if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data)
            || PyTuple_GET_SIZE(data) < 1) {
        PyErr_Format(PyExc_TypeError, "%s's __cuda_array_interface__ lacks shape, typestr or data",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    if (mask && mask != Py_None) {
        PyErr_SetString(PyExc_TypeError, "a masked GPU array (__cuda_array_interface__ mask) is not supported");
        return -1;
    }
    int ndim = (int)PyTuple_GET_SIZE(shape);
    npy_intp dims[OPKIT_GPU_MAXDIMS], steps[OPKIT_GPU_MAXDIMS];
    if (ndim > OPKIT_GPU_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "a GPU array has at most %d dimensions, got %d", OPKIT_GPU_MAXDIMS, ndim);
        return -1;
    }
    const char* type = PyUnicode_AsUTF8(typestr);
    int typenum = type ? opkit_gpu_typenum(type) : -1;
    if (typenum < 0 || opkit_gpu_intp_tuple(shape, dims, ndim, "shape")) return -1;
    if (strides && strides != Py_None) {
        if (opkit_gpu_intp_tuple(strides, steps, ndim, "strides")) return -1;
    } else {  // None: C-contiguous
        npy_intp step = atoi(type + 2);
        for (int i = ndim - 1; i >= 0; --i) {
            steps[i] = step;
            step *= dims[i] > 0 ? dims[i] : 1;
        }
    }
    void* pointer = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!pointer && PyErr_Occurred()) return -1;
    return opkit_gpu_set(out, o, pointer, ndim, dims, steps, typenum);
}

// Fill `out` from a CuPy array or any object with __cuda_array_interface__ (versions 2 and 3).
static inline int opkit_gpu_from_object(PyObject* o, OpkitGpuArray* out)
{
    PyObject* cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
    if (!cai || !PyDict_Check(cai)) {
        Py_XDECREF(cai);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "expected a GPU array (an object with __cuda_array_interface__, such as a "
                     "CuPy array), got %s: opkit.gpu.to_gpu(value) moves a host value", Py_TYPE(o)->tp_name);
        return -1;
    }
    int status = opkit_gpu_from_interface(o, cai, out);
    Py_DECREF(cai);
    return status;
}

static inline PyObject* opkit_gpu_make_array(int ndim, const npy_intp* dims, int typenum, int zero)
{
    PyObject* shape = PyTuple_New(ndim);
    if (!shape) return NULL;
    for (int i = 0; i < ndim; ++i) {
        PyObject* d = PyLong_FromSsize_t((Py_ssize_t)dims[i]);
        if (!d) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, i, d);
    }
    return opkit_gpu_runtime_call(zero ? "zeros" : "empty", Py_BuildValue("(Ni)", shape, typenum));
}

// The driver's functions, found once (0), or -1 with a RuntimeError saying why.
static inline int opkit_gpu_driver(OpkitCuLaunchKernel* launch, OpkitCuGetErrorName* error_name)
{
    static OpkitCuLaunchKernel found_launch = NULL;
    static OpkitCuGetErrorName found_name = NULL;
    if (!found_launch) {
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            PyErr_Format(PyExc_RuntimeError, "cannot launch a CUDA kernel: the NVIDIA driver's libcuda.so.1 was "
                         "not found (%s)", dlerror());
            return -1;
        }
        found_name = (OpkitCuGetErrorName)dlsym(library, "cuGetErrorName");
        found_launch = (OpkitCuLaunchKernel)dlsym(library, "cuLaunchKernel");
        if (!found_launch) {
            PyErr_SetString(PyExc_RuntimeError, "cannot launch a CUDA kernel: libcuda.so.1 has no cuLaunchKernel");
            return -1;
        }
    }
    *launch = found_launch;
    *error_name = found_name;
    return 0;
}

static inline void* opkit_gpu_pointer_of(PyObject* value)
{
    void* pointer = value ? PyLong_AsVoidPtr(value) : NULL;
    Py_XDECREF(value);
    return pointer;
}

// Launch `kernel` of the module `module_key` with the argument pointers `params` on the current CuPy stream.
static inline int opkit_gpu_launch_params(OpkitCUfunction* cached, const char* module_key, const char* kernel,
                                          OpkitGpuDims grid, OpkitGpuDims block, unsigned long long shared_bytes,
                                          void** params)
{
    char why[400];
    const char* invalid = opkit_gpu_check_launch(grid, block, shared_bytes, why, sizeof why);
    if (invalid) {
        PyErr_Format(PyExc_RuntimeError, "%s: kernel %s cannot be launched: %s", invalid, kernel, why);
        return -1;
    }
    OpkitCuLaunchKernel launch;
    OpkitCuGetErrorName error_name;
    if (opkit_gpu_driver(&launch, &error_name)) return -1;
    if (!*cached) {
        void* f = opkit_gpu_pointer_of(opkit_gpu_runtime_call("kernel_function",
                                                              Py_BuildValue("(ss)", module_key, kernel)));
        if (!f) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_RuntimeError, "opkit.gpu.runtime.kernel_function found no kernel %s", kernel);
            return -1;
        }
        *cached = (OpkitCUfunction)f;
    }
    void* stream = opkit_gpu_pointer_of(opkit_gpu_runtime_call("current_stream", PyTuple_New(0)));
    if (PyErr_Occurred()) return -1;
    OpkitCUresult status = launch(*cached, (unsigned)grid.x, (unsigned)grid.y, (unsigned)grid.z, (unsigned)block.x,
                                  (unsigned)block.y, (unsigned)block.z, (unsigned)shared_bytes,
                                  (OpkitCUstream)stream, params, NULL);
    if (status != 0) {
        const char* name = NULL;
        if (!error_name || error_name(status, &name) != 0 || !name) name = "an unknown CUDA error";
        PyErr_Format(PyExc_RuntimeError, "%s: kernel %s failed to launch (CUresult %d)", name, kernel, (int)status);
        return -1;
    }
    return 0;
}

// Each argument is passed as its bytes: its type must be the kernel parameter's (the interpreter checks it).
template <class G, class B, class... A>
static inline int opkit_gpu_launch(OpkitCUfunction* cached, const char* module_key, const char* kernel, G grid,
                                   B block, unsigned long long shared_bytes, A... args)
{
    void* params[] = {NULL, (void*)&args...};
    return opkit_gpu_launch_params(cached, module_key, kernel, opkit_gpu_dims(grid), opkit_gpu_dims(block),
                                   shared_bytes, params + 1);
}

// Launch the node's kernel APPLY_SPECIFIC(name): 0, or -1 with a RuntimeError naming the CUDA error.
// The CUfunction is fetched once per call site of each node and kept in a static.
#define OPKIT_LAUNCH(name, grid, block, shared_bytes, ...) \
    ([&]() -> int { \
        static OpkitCUfunction opkit_function_ = NULL; \
        return opkit_gpu_launch(&opkit_function_, OPKIT_KERNEL_MODULE_KEY, OPKIT_GPU_XSTR(APPLY_SPECIFIC(name)), \
                                grid, block, shared_bytes, ##__VA_ARGS__); \
    }())

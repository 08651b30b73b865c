// opkit's C contract for GPU nodes (SPEC 16): the host code of a node whose inputs and outputs are
// opkit.gpu.GpuArrayType sees each as an `OpkitGpuArray*`, allocates outputs with opkit_gpu_empty /
// opkit_gpu_zeros and launches the node's kernels with OPKIT_LAUNCH:
//
//     if (opkit_gpu_empty(&OUTPUT_0, INPUT_0->ndim, INPUT_0->dims, INPUT_0->typenum)) FAIL;
//     if (OPKIT_LAUNCH(axpy, blocks, 256, 0, n, INPUT_0->data, OUTPUT_0->data)) FAIL;
//
// Two modes, one text:
// - OPKIT_CUDA_INTERPRET defined (device="cuda-interpret"): values are numpy arrays, the kernels text
//   is compiled into the same module against cuda_interpret.h, and OPKIT_LAUNCH runs it on the CPU.
// - not defined (device="cuda"): values are CuPy arrays (anything with __cuda_array_interface__),
//   allocation goes through CuPy's pool (opkit.gpu.runtime.empty / zeros), and OPKIT_LAUNCH calls the
//   driver's cuLaunchKernel (dlopen("libcuda.so.1"); no CUDA header) with the CUfunction that
//   opkit.gpu.runtime.kernel_function(OPKIT_KERNEL_MODULE_KEY, "<kernel>") returns (once per node and
//   call site, kept in a static) on the stream opkit.gpu.runtime.current_stream() returns.
//
// The generator defines, per node, before the node's code: APPLY_SPECIFIC(str) (as for every node) and,
// on cuda, OPKIT_KERNEL_MODULE_KEY, a string literal naming the node's compiled kernels module (the key
// opkit.cop.kernels.kernel_module_key gives). It includes this header after Python.h and numpy's
// arrayobject.h (whose C API the module imports once, in its init).
//
// Ownership: an OpkitGpuArray is malloc'd by opkit_gpu_new (or by opkit_gpu_empty/zeros when *out is
// NULL) and holds a strong reference to its array in `obj`; opkit_gpu_release frees both.
// Every function returns 0 on success, else -1 with a Python exception set (called with the GIL held).
#ifndef OPKIT_GPU_H
#define OPKIT_GPU_H
#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN  // as the generated modules do, in case this header comes first
#endif
#include <Python.h>
#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>
#include <cstdlib>
#include <cstring>
#include "cuda_types.h"
#ifdef OPKIT_CUDA_INTERPRET
#include "cuda_interpret.h"
#endif

#define OPKIT_GPU_MAXDIMS 32
#define OPKIT_GPU_STR(x) #x
#define OPKIT_GPU_XSTR(x) OPKIT_GPU_STR(x)

typedef struct {
    void* data;                           // device pointer (host pointer in interpret mode)
    int ndim;
    npy_intp dims[OPKIT_GPU_MAXDIMS];
    npy_intp strides[OPKIT_GPU_MAXDIMS];  // in bytes
    int typenum;                          // numpy's NPY_* type number
    PyObject* obj;                        // the array (CuPy's, or numpy's in interpret mode): a strong reference
} OpkitGpuArray;

static inline OpkitGpuArray* opkit_gpu_new(void)
{
    OpkitGpuArray* a = (OpkitGpuArray*)calloc(1, sizeof(OpkitGpuArray));
    if (!a) PyErr_NoMemory();
    return a;
}

static inline void opkit_gpu_release(OpkitGpuArray** a)
{
    if (!*a) return;
    Py_XDECREF((*a)->obj);
    free(*a);
    *a = NULL;
}

// The number of elements.
static inline npy_intp opkit_gpu_size(const OpkitGpuArray* a)
{
    npy_intp n = 1;
    for (int i = 0; i < a->ndim; ++i) n *= a->dims[i];
    return n;
}

static inline int opkit_gpu_set(OpkitGpuArray* out, PyObject* o, void* data, int ndim, const npy_intp* dims,
                                const npy_intp* strides, int typenum)
{
    if (ndim > OPKIT_GPU_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "a GPU array has at most %d dimensions, got %d", OPKIT_GPU_MAXDIMS, ndim);
        return -1;
    }
    Py_INCREF(o);
    Py_XDECREF(out->obj);
    out->obj = o;
    out->data = data;
    out->ndim = ndim;
    out->typenum = typenum;
    for (int i = 0; i < ndim; ++i) {
        out->dims[i] = dims[i];
        out->strides[i] = strides[i];
    }
    return 0;
}

#ifdef OPKIT_CUDA_INTERPRET
#include "opkit_gpu_interpret.h"
#else
#include "opkit_gpu_cuda.h"
#endif

static inline int opkit_gpu_alloc(OpkitGpuArray** out, int ndim, const npy_intp* dims, int typenum, int zero)
{
    if (ndim < 0 || ndim > OPKIT_GPU_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "a GPU array has 0 to %d dimensions, got %d", OPKIT_GPU_MAXDIMS, ndim);
        return -1;
    }
    for (int i = 0; i < ndim; ++i)
        if (dims[i] < 0) {
            PyErr_Format(PyExc_ValueError, "cannot allocate a GPU array with a negative dimension (%zd)",
                         (Py_ssize_t)dims[i]);
            return -1;
        }
    if (!*out && !(*out = opkit_gpu_new())) return -1;
    PyObject* array = opkit_gpu_make_array(ndim, dims, typenum, zero);
    if (!array) return -1;
    int status = opkit_gpu_from_object(array, *out);
    Py_DECREF(array);
    return status;
}

// Allocate *out (a new OpkitGpuArray if *out is NULL; else its array is replaced) as a C-contiguous
// array of `typenum` with `ndim` dimensions `dims`: uninitialized, or zero-filled.
static inline int opkit_gpu_empty(OpkitGpuArray** out, int ndim, const npy_intp* dims, int typenum)
{
    return opkit_gpu_alloc(out, ndim, dims, typenum, 0);
}

static inline int opkit_gpu_zeros(OpkitGpuArray** out, int ndim, const npy_intp* dims, int typenum)
{
    return opkit_gpu_alloc(out, ndim, dims, typenum, 1);
}

#endif  // OPKIT_GPU_H

// opkit_gpu.h's interpret mode (OPKIT_CUDA_INTERPRET): device memory is host memory, values are numpy
// arrays, and OPKIT_LAUNCH runs the kernel on the CPU (cuda_interpret.h). Included by opkit_gpu.h.

// Fill `out` from a numpy array (a new reference to it is kept in out->obj).
static inline int opkit_gpu_from_object(PyObject* o, OpkitGpuArray* out)
{
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "device=\"cuda-interpret\" expects a numpy.ndarray as a GPU value, got %s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    if (!PyArray_CheckExact(o)) {
        // A subclass may carry meaning a kernel would silently drop (np.ma's mask).
        PyErr_Format(PyExc_TypeError, "device=\"cuda-interpret\" expects a plain numpy.ndarray as a GPU value, got "
                     "%s, a subclass: a kernel reads only the data; pass numpy.asarray(value)", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyArrayObject* a = (PyArrayObject*)o;
    if (!PyArray_ISNOTSWAPPED(a) || !PyArray_ISALIGNED(a)) {
        // A kernel reads the raw bytes: a byte-swapped or unaligned array would give wrong numbers.
        PyErr_Format(PyExc_TypeError, "a GPU value must be aligned and in native byte order (as CuPy's are), "
                     "got a%s array of dtype %S: pass numpy.ascontiguousarray(value, value.dtype.newbyteorder('='))",
                     PyArray_ISALIGNED(a) ? " byte-swapped" : "n unaligned", (PyObject*)PyArray_DESCR(a));
        return -1;
    }
    return opkit_gpu_set(out, o, PyArray_DATA(a), PyArray_NDIM(a), PyArray_DIMS(a), PyArray_STRIDES(a),
                         PyArray_TYPE(a));
}

static inline PyObject* opkit_gpu_make_array(int ndim, const npy_intp* dims, int typenum, int zero)
{
    return zero ? PyArray_ZEROS(ndim, (npy_intp*)dims, typenum, 0) : PyArray_EMPTY(ndim, (npy_intp*)dims, typenum, 0);
}

static inline int opkit_gpu_interpret_failed(void)
{
    PyErr_SetString(PyExc_RuntimeError, opkit_interp::last_error());
    return -1;
}

// Run the node's kernel APPLY_SPECIFIC(name) on the CPU: 0, or -1 with a RuntimeError naming the CUDA
// error (a refused launch) or what the interpreter refused (a divergent barrier, ...).
#define OPKIT_LAUNCH(name, grid, block, shared_bytes, ...) \
    (::opkit_interp::launch(OPKIT_GPU_XSTR(APPLY_SPECIFIC(name)), APPLY_SPECIFIC(name), grid, block, \
                            shared_bytes, ##__VA_ARGS__) ? opkit_gpu_interpret_failed() : 0)

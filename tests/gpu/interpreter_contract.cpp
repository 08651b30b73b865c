// A host module on the GPU C contract (opkit/templates/gpu/opkit_gpu.h), built by
// tests/gpu/test_interpreter_contract.py twice from this one text: with OPKIT_CUDA_INTERPRET (numpy
// values, kernels run on the CPU) and without (CuPy values, cuLaunchKernel through dlopen).
// OPKIT_TEST_MODULE names the module.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include "opkit_gpu.h"

#define APPLY_SPECIFIC(str) str##_node7
#ifdef OPKIT_CUDA_INTERPRET
#include "contract_kernels_interpretable.cu"  // interpreter_contract_kernels.cu through interpretable_text
#else
#define OPKIT_KERNEL_MODULE_KEY "test-module-key"
#endif

#define OPKIT_CAT(a, b) a##b
#define OPKIT_INIT(name) OPKIT_CAT(PyInit_, name)
#define OPKIT_NAME(name) OPKIT_GPU_XSTR(name)

static PyObject* finish(OpkitGpuArray** a, OpkitGpuArray** b, PyObject* result)
{
    opkit_gpu_release(a);
    opkit_gpu_release(b);
    return result;
}

// scale(x, a, grid=-1, block=256): a new array a * x (float32), by the kernel `scale`.
static PyObject* scale(PyObject*, PyObject* args)
{
    PyObject* value;
    float a;
    long long grid = -1, block = 256;
    if (!PyArg_ParseTuple(args, "Of|LL", &value, &a, &grid, &block)) return NULL;
    OpkitGpuArray *x = opkit_gpu_new(), *out = NULL;
    if (!x || opkit_gpu_from_object(value, x)) return finish(&x, &out, NULL);
    if (x->typenum != NPY_FLOAT32) {
        PyErr_SetString(PyExc_TypeError, "scale takes float32");
        return finish(&x, &out, NULL);
    }
    int n = (int)opkit_gpu_size(x);
    if (opkit_gpu_empty(&out, x->ndim, x->dims, x->typenum)) return finish(&x, &out, NULL);
    if (grid < 0) grid = n ? (n + block - 1) / block : 1;
    if (OPKIT_LAUNCH(scale, grid, block, 0, n, a, x->data, out->data)) return finish(&x, &out, NULL);
    Py_INCREF(out->obj);
    return finish(&x, &out, out->obj);
}

// scale_into(x, out, a, grid, block): out = a * x by the kernel `scale`, allocating nothing.
static PyObject* scale_into(PyObject*, PyObject* args)
{
    PyObject *value, *into;
    float a;
    long long grid, block;
    if (!PyArg_ParseTuple(args, "OOfLL", &value, &into, &a, &grid, &block)) return NULL;
    OpkitGpuArray *x = opkit_gpu_new(), *out = opkit_gpu_new();
    if (!x || !out || opkit_gpu_from_object(value, x) || opkit_gpu_from_object(into, out))
        return finish(&x, &out, NULL);
    int n = (int)opkit_gpu_size(x);
    if (OPKIT_LAUNCH(scale, grid, block, 0, n, a, x->data, out->data)) return finish(&x, &out, NULL);
    Py_INCREF(Py_None);
    return finish(&x, &out, Py_None);
}

// block_total(x, block): float64 per-block sums of x by the kernel `block_total` (dynamic shared memory).
static PyObject* block_total(PyObject*, PyObject* args)
{
    PyObject* value;
    int block;
    if (!PyArg_ParseTuple(args, "Oi", &value, &block)) return NULL;
    OpkitGpuArray *x = opkit_gpu_new(), *out = NULL;
    if (!x || opkit_gpu_from_object(value, x)) return finish(&x, &out, NULL);
    int n = (int)opkit_gpu_size(x);
    npy_intp blocks = n ? (n + block - 1) / block : 1;
    if (opkit_gpu_zeros(&out, 1, &blocks, NPY_FLOAT64)) return finish(&x, &out, NULL);
    if (OPKIT_LAUNCH(block_total, blocks, block, (unsigned long long)block * sizeof(double), n, x->data,
                     out->data))
        return finish(&x, &out, NULL);
    Py_INCREF(out->obj);
    return finish(&x, &out, out->obj);
}

// describe(value): (data, ndim, dims, strides, typenum) as opkit_gpu_from_object sees `value`.
static PyObject* describe(PyObject*, PyObject* value)
{
    OpkitGpuArray* a = opkit_gpu_new();
    OpkitGpuArray* none = NULL;
    if (!a || opkit_gpu_from_object(value, a)) return finish(&a, &none, NULL);
    PyObject* dims = PyTuple_New(a->ndim);
    PyObject* strides = PyTuple_New(a->ndim);
    for (int i = 0; i < a->ndim; ++i) {
        PyTuple_SET_ITEM(dims, i, PyLong_FromSsize_t(a->dims[i]));
        PyTuple_SET_ITEM(strides, i, PyLong_FromSsize_t(a->strides[i]));
    }
    int same = a->obj == value;
    PyObject* result = Py_BuildValue("(NiNNii)", PyLong_FromVoidPtr(a->data), a->ndim, dims, strides, a->typenum,
                                     same);
    return finish(&a, &none, result);
}

// allocate(shape, typenum, zero): opkit_gpu_empty or opkit_gpu_zeros.
static PyObject* allocate(PyObject*, PyObject* args)
{
    PyObject* shape;
    int typenum, zero;
    if (!PyArg_ParseTuple(args, "O!ii", &PyTuple_Type, &shape, &typenum, &zero)) return NULL;
    npy_intp dims[OPKIT_GPU_MAXDIMS + 1];
    int ndim = (int)PyTuple_GET_SIZE(shape);
    for (int i = 0; i < ndim && i <= OPKIT_GPU_MAXDIMS; ++i) dims[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
    OpkitGpuArray *out = NULL, *none = NULL;
    if ((zero ? opkit_gpu_zeros : opkit_gpu_empty)(&out, ndim, dims, typenum)) return finish(&out, &none, NULL);
    Py_INCREF(out->obj);
    return finish(&out, &none, out->obj);
}

static PyMethodDef methods[] = {
    {"scale", scale, METH_VARARGS, NULL},
    {"scale_into", scale_into, METH_VARARGS, NULL},
    {"block_total", block_total, METH_VARARGS, NULL},
    {"describe", describe, METH_O, NULL},
    {"allocate", allocate, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, OPKIT_NAME(OPKIT_TEST_MODULE), NULL, -1, methods};

PyMODINIT_FUNC OPKIT_INIT(OPKIT_TEST_MODULE)(void)
{
    import_array();
    return PyModule_Create(&module);
}

// opkit's raw-buffer handler (opkit.bridge.raw_call): compiled code that is not Python (numba's nopython code,
// opkit.bridge.pytensor_numba) calls a bridged graph's slot with data pointers, shapes and strides, no Python
// frame. The slot machinery is the XLA handler's (slot_call.h); this file reads the caller's buffers.
#include "slot_call.h"

static PyObject* opkit_last_exception = NULL;  // the last exception a slot's function raised (under the GIL)

// One buffer in `desc`: its data pointer, numpy type number, ndim, then ndim dims and ndim strides (bytes).
static PyObject* opkit_raw_buffer(const int64_t** desc, bool writable, std::string* error)
{
    const int64_t* d = *desc;
    int ndim = (int)d[2];
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    for (int k = 0; k < ndim && k < NPY_MAXDIMS; ++k) {
        shape[k] = (npy_intp)d[3 + k];
        strides[k] = (npy_intp)d[3 + ndim + k];
    }
    *desc = d + 3 + 2 * ndim;
    // outputs are the caller's fresh C-contiguous buffers; inputs may be any strided view
    return opkit_wrap_raw((void*)(intptr_t)d[0], (int)d[1], ndim, shape, writable ? NULL : strides, writable, error);
}

// Run slot `slot` on n_inputs input buffers then n_outputs output buffers (described in `desc`, see above).
// Returns 0, or -1 with the error kept for opkit_raw_error() (take_error() in Python).
extern "C" int opkit_raw_call(int64_t slot, int64_t n_inputs, int64_t n_outputs, const int64_t* desc)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_CLEAR(opkit_last_exception);
    std::string error;
    std::vector<PyObject*> inputs, targets;
    for (int64_t k = 0; k < n_inputs + n_outputs && error.empty(); ++k) {
        PyObject* array = opkit_raw_buffer(&desc, k >= n_inputs, &error);
        if (!array && error.empty()) error = opkit_exception_text();
        if (array) (k < n_inputs ? inputs : targets).push_back(array);
    }
    error = opkit_slot_run(slot, inputs, targets, error, "numba");
    int status = 0;
    if (!error.empty()) {
        status = -1;
        PyObject* text = PyUnicode_FromStringAndSize(error.data(), (Py_ssize_t)error.size());
        PyObject* pair = text ? PyTuple_Pack(2, opkit_last_exception ? opkit_last_exception : Py_None, text) : NULL;
        Py_XDECREF(text);
        Py_XSETREF(opkit_last_exception, pair);
        PyErr_Clear();
    }
    PyGILState_Release(gil);
    return status;
}

// take_error() -> (the exception the slot's function raised or None, the handler's text), or None.
static PyObject* take_error(PyObject* module, PyObject* unused)
{
    if (!opkit_last_exception || !PyTuple_Check(opkit_last_exception)) Py_RETURN_NONE;
    PyObject* pair = opkit_last_exception;
    opkit_last_exception = NULL;
    return pair;
}

static PyObject* call_address(PyObject* module, PyObject* unused)
{
    return PyLong_FromVoidPtr((void*)opkit_raw_call);
}

static PyMethodDef module_methods[] = {
    {"register", (PyCFunction)(void(*)(void))opkit_register_function, METH_FASTCALL, "register(function, label, preallocated) -> slot"},
    {"address", call_address, METH_NOARGS, "The address of opkit_raw_call(slot, n_inputs, n_outputs, desc)."},
    {"take_error", take_error, METH_NOARGS, "(exception or None, text) of the last failed call, or None."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "OPKIT_MODULE_NAME", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_OPKIT_MODULE_NAME(void)
{
    import_array();
    opkit_kept_exception = &opkit_last_exception;
    return PyModule_Create(&module_def);
}

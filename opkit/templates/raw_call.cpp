// opkit's raw-buffer handler (opkit.bridge.slot_call): compiled code that is not Python (numba's nopython code,
// opkit.bridge.pytensor_numba) calls a bridged graph's slot with data pointers, shapes and strides, no Python
// frame. The slot machinery is the XLA handler's (slot_call.h); this file reads the caller's buffers.
#include "slot_call.h"
#include <unordered_map>

static PyObject* opkit_last_exception = NULL;  // the last exception a slot's function raised (under the GIL)

// slot -> the arrays of its last call, one per buffer: a call reuses one that nothing else holds (its reference
// count is 1), pointing it at the new buffer, instead of making a new array (most of a call's cost). Taken out
// while a call runs (a concurrent call of the slot, when the op's C released the GIL, makes its own).
static std::vector<std::vector<PyObject*>> opkit_kept_arrays;

// Point `array` (of the same ndim and dtype, held only here) at another buffer of the same writability.
static void opkit_repoint(PyObject* array, void* data, int ndim, const npy_intp* shape, const npy_intp* strides)
{
    PyArrayObject_fields* fields = (PyArrayObject_fields*)array;
    fields->data = (char*)data;
    npy_intp step = PyArray_ITEMSIZE((PyArrayObject*)array);
    for (int k = ndim - 1; k >= 0; --k) {
        fields->dimensions[k] = shape[k];
        fields->strides[k] = strides ? strides[k] : step;
        step *= shape[k] ? shape[k] : 1;
    }
    PyArray_UpdateFlags((PyArrayObject*)array, NPY_ARRAY_UPDATE_ALL);
}

// The array of buffer `position` of slot `slot` (a new reference): the kept one repointed, or a new one.
// `d`: the buffer's data pointer, numpy type number, ndim, then ndim dims and ndim strides (bytes).
static PyObject* opkit_raw_buffer(int64_t slot, size_t position, const int64_t* d, bool writable,
                                  std::string* error)
{
    int ndim = (int)d[2];
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    npy_intp count = 1;
    for (int k = 0; k < ndim && k < NPY_MAXDIMS; ++k) {
        shape[k] = (npy_intp)d[3 + k];
        strides[k] = (npy_intp)d[3 + ndim + k];
        count *= shape[k];
    }
    // outputs are the caller's fresh C-contiguous buffers; inputs may be any strided view
    const npy_intp* given = writable ? NULL : strides;
    void* data = (void*)(intptr_t)d[0];
    std::vector<PyObject*>& kept = opkit_kept_arrays[slot];
    if (kept.size() <= position) kept.resize(position + 1, NULL);
    PyObject* array = kept[position];
    kept[position] = NULL;
    if (array && Py_REFCNT(array) == 1 && count && data && ndim <= NPY_MAXDIMS
            && PyArray_NDIM((PyArrayObject*)array) == ndim && PyArray_TYPE((PyArrayObject*)array) == (int)d[1]) {
        opkit_repoint(array, data, ndim, shape, given);
        return array;
    }
    Py_XDECREF(array);
    return opkit_wrap_raw(data, (int)d[1], ndim, shape, given, writable, error);
}

// Run slot `slot` (under the GIL; `error`: why there is no slot to run, or empty). Returns 0, or -1 with the
// error kept for take_error().
static int opkit_raw_run(int64_t slot, int64_t n_inputs, int64_t n_outputs, const int64_t* desc, std::string error)
{
    Py_CLEAR(opkit_last_exception);
    std::vector<PyObject*> inputs, targets;
    inputs.reserve((size_t)(n_inputs + n_outputs));  // room for the targets a preallocated call appends
    targets.reserve((size_t)n_outputs);
    if (error.empty() && (slot < 0 || (size_t)slot >= opkit_functions.size()))
        error = "no bridged opkit graph in slot " + std::to_string(slot) + " of this process";
    else if (opkit_kept_arrays.size() < opkit_functions.size())
        opkit_kept_arrays.resize(opkit_functions.size());
    for (int64_t k = 0; k < n_inputs + n_outputs && error.empty(); ++k) {
        PyObject* array = opkit_raw_buffer(slot, (size_t)k, desc, k >= n_inputs, &error);
        desc += 3 + 2 * desc[2];
        if (!array && error.empty()) error = opkit_exception_text();
        if (!array) break;
        Py_INCREF(array);  // kept for the next call
        (k < n_inputs ? inputs : targets).push_back(array);
    }
    size_t n_wrapped = inputs.size();
    // slot_run releases its references (it appends the targets to `inputs`, keeping the first n_wrapped)
    error = opkit_slot_run(slot, inputs, targets, error, "numba");
    for (size_t k = 0; k < n_wrapped; ++k) Py_XSETREF(opkit_kept_arrays[slot][k], inputs[k]);
    for (size_t k = 0; k < targets.size(); ++k) Py_XSETREF(opkit_kept_arrays[slot][(size_t)n_inputs + k], targets[k]);
    int status = 0;
    if (!error.empty()) {
        status = -1;
        PyObject* text = PyUnicode_FromStringAndSize(error.data(), (Py_ssize_t)error.size());
        PyObject* pair = text ? PyTuple_Pack(2, opkit_last_exception ? opkit_last_exception : Py_None, text) : NULL;
        Py_XDECREF(text);
        Py_XSETREF(opkit_last_exception, pair);
        PyErr_Clear();
    }
    return status;
}

// key -> slot, bound by bind(key, slot) in this process (under the GIL). Compiled code that numba caches on disk
// names a graph by its key, which is the same in every process, not by its slot, which is this process's.
static std::unordered_map<int64_t, int64_t> opkit_slot_of_key;

// Run the slot bound to `key` on n_inputs input buffers then n_outputs output buffers (described one after the
// other in `desc`, see opkit_raw_buffer). Returns 0, or -1 with the error kept for take_error().
extern "C" int opkit_raw_call_keyed(int64_t key, int64_t n_inputs, int64_t n_outputs, const int64_t* desc)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    auto found = opkit_slot_of_key.find(key);
    std::string error;
    if (found == opkit_slot_of_key.end())
        error = "no bridged opkit graph bound to key " + std::to_string(key) + " in this process";
    int status = opkit_raw_run(found == opkit_slot_of_key.end() ? -1 : found->second, n_inputs, n_outputs, desc,
                               error);
    PyGILState_Release(gil);
    return status;
}

// bind(key, slot): opkit_raw_call_keyed(key, ...) runs `slot` from now on.
static PyObject* bind(PyObject* module, PyObject* const* args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "bind(key, slot)");
        return NULL;
    }
    long long key = PyLong_AsLongLong(args[0]);
    if (key == -1 && PyErr_Occurred()) return NULL;
    long long slot = PyLong_AsLongLong(args[1]);
    if (slot == -1 && PyErr_Occurred()) return NULL;
    if (slot < 0 || (size_t)slot >= opkit_functions.size()) {
        PyErr_Format(PyExc_ValueError, "bind: no slot %lld in this process", slot);
        return NULL;
    }
    opkit_slot_of_key[(int64_t)key] = (int64_t)slot;
    Py_RETURN_NONE;
}

// take_error() -> (the exception the slot's function raised or None, the handler's text), or None.
static PyObject* take_error(PyObject* module, PyObject* unused)
{
    if (!opkit_last_exception || !PyTuple_Check(opkit_last_exception)) Py_RETURN_NONE;
    PyObject* pair = opkit_last_exception;
    opkit_last_exception = NULL;
    return pair;
}

static PyObject* keyed_address(PyObject* module, PyObject* unused)
{
    return PyLong_FromVoidPtr((void*)opkit_raw_call_keyed);
}

static PyMethodDef module_methods[] = {
    {"register", (PyCFunction)(void(*)(void))opkit_register_function, METH_FASTCALL, "register(function, label, preallocated) -> slot"},
    {"keyed_address", keyed_address, METH_NOARGS, "The address of opkit_raw_call_keyed(key, n_inputs, n_outputs, desc)."},
    {"bind", (PyCFunction)(void(*)(void))bind, METH_FASTCALL, "bind(key, slot): opkit_raw_call_keyed(key, ...) runs slot."},
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

// opkit's slot call (opkit.bridge.slot_call): the part of a foreign caller's handler that is not the caller's.
//
// A caller that is not Python (XLA's FFI: templates/jax_ffi.cpp; numba's nopython code: templates/raw_call.cpp)
// holds raw buffers and a slot number. Each slot holds a compiled opkit function (a C object: FunctionBase over
// the graph's module, see templates/fastcall.cpp, or a one-node module's runner that also takes each output's
// array, which the op's C code writes into when it reuses its output). Under the GIL, opkit_slot_run wraps each
// buffer as a numpy array (no copy; inputs read-only), calls the slot's function and copies each result that is
// not already the caller's output buffer into it, after checking its dtype and shape.
// The text of this file is put in place of the line that includes it (opkit.bridge.slot_call.handler_source), so
// it is part of each handler module's content key.
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <cstdint>
#include <string>
#include <vector>

// slot -> (compiled function, label, whether it takes the outputs' arrays too); only appended to, under the
// GIL; entries live for the process (a caller's compiled code may hold a slot number as long as it lives)
static std::vector<PyObject*> opkit_functions;
static std::vector<std::string> opkit_labels;
static std::vector<int> opkit_preallocated;

// A numpy array over a caller's buffer (no copy): read-only for inputs, writable for outputs. `strides`
// (bytes) NULL: C-contiguous.
static PyObject* opkit_wrap_raw(void* data, int typenum, int ndim, const npy_intp* shape, const npy_intp* strides,
                                bool writable, std::string* error)
{
    if (typenum < 0) {
        *error = "a buffer's element type has no numpy dtype";
        return NULL;
    }
    if (ndim > NPY_MAXDIMS || ndim < 0) {
        *error = "a buffer has more dimensions than numpy allows";
        return NULL;
    }
    npy_intp count = 1;
    for (int k = 0; k < ndim; ++k) count *= shape[k];
    int flags = (strides ? 0 : NPY_ARRAY_C_CONTIGUOUS) | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
    // an empty array: numpy allocates its own
    PyObject* array = PyArray_New(&PyArray_Type, ndim, (npy_intp*)shape, typenum, count ? (npy_intp*)strides : NULL,
                                  count ? data : NULL, 0, flags, NULL);
    if (array && strides) PyArray_UpdateFlags((PyArrayObject*)array, NPY_ARRAY_UPDATE_ALL);
    return array;
}

// Where a handler keeps the last exception a slot's function raised (NULL: it keeps none, only its text). Set
// by a handler that raises it again in Python (templates/raw_call.cpp); changed only under the GIL.
static PyObject** opkit_kept_exception = NULL;

// The pending Python exception as text (its notes too), cleared (kept in *opkit_kept_exception where set).
static std::string opkit_exception_text()
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (opkit_kept_exception && value) {
        if (traceback) PyException_SetTraceback(value, traceback);
        Py_INCREF(value);
        Py_XSETREF(*opkit_kept_exception, value);
    }
    std::string text = type ? ((PyTypeObject*)type)->tp_name : "error";
    PyObject* message = value ? PyObject_Str(value) : NULL;
    if (message) {
        const char* chars = PyUnicode_AsUTF8(message);
        if (chars) text += std::string(": ") + chars;
        Py_DECREF(message);
    }
    PyObject* notes = value ? PyObject_GetAttrString(value, "__notes__") : NULL;
    if (notes && PyList_Check(notes)) {
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(notes); ++k) {
            PyObject* note = PyObject_Str(PyList_GET_ITEM(notes, k));
            const char* chars = note ? PyUnicode_AsUTF8(note) : NULL;
            if (chars) text += std::string("\n") + chars;
            Py_XDECREF(note);
        }
    }
    Py_XDECREF(notes);
    PyErr_Clear();
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return text;
}

// Copy one result into the caller's output buffer `out` (nothing to do where the op wrote into it).
static std::string opkit_store_result(size_t k, PyObject* item, PyObject* target, const char* caller)
{
    std::string error;
    PyArrayObject* out = (PyArrayObject*)target;
    // a 0-d output from Python code may be a numpy scalar: as an array, its dtype is checked below
    PyObject* value = PyArray_Check(item) ? (Py_INCREF(item), item) : PyArray_FromAny(item, NULL, 0, 0, 0, NULL);
    if (!value) return "output " + std::to_string(k) + " is not an array: " + opkit_exception_text();
    PyArrayObject* got = (PyArrayObject*)value;
    bool same = PyArray_NDIM(got) == PyArray_NDIM(out) && PyArray_EquivTypenums(PyArray_TYPE(got), PyArray_TYPE(out));
    for (int d = 0; same && d < PyArray_NDIM(out); ++d) same = PyArray_DIM(got, d) == PyArray_DIM(out, d);
    if (!same) {
        PyObject* got_text = PyObject_Repr((PyObject*)PyArray_DESCR(got));
        PyObject* got_shape = PyObject_GetAttrString(value, "shape");
        PyObject* want_shape = PyObject_GetAttrString(target, "shape");
        PyObject* want_text = PyObject_Repr((PyObject*)PyArray_DESCR(out));
        PyObject* text = (got_text && got_shape && want_shape && want_text)
            ? PyUnicode_FromFormat("output %zd is %U of shape %S; %s expects %U of shape %S (from "
                                   "infer_shape and the output type)", (Py_ssize_t)k, got_text,
                                   got_shape, caller, want_text, want_shape) : NULL;
        const char* chars = text ? PyUnicode_AsUTF8(text) : NULL;
        error = chars ? chars : "an output's dtype or shape is not what the caller expects";
        Py_XDECREF(text);
        Py_XDECREF(got_text);
        Py_XDECREF(got_shape);
        Py_XDECREF(want_shape);
        Py_XDECREF(want_text);
        PyErr_Clear();
    } else if (PyArray_SIZE(out) && !(PyArray_DATA(got) == PyArray_DATA(out) && PyArray_IS_C_CONTIGUOUS(got))
               && PyArray_CopyInto(out, got) < 0) {  // (written into the caller's C-contiguous buffer: no copy)
        error = opkit_exception_text();
    }
    Py_DECREF(value);
    return error;
}

// Call the slot's function on `inputs` (then `targets` where it takes them) and store its results into
// `targets`. Steals every reference in both; returns the error text ("" on success), the label first; `caller`
// names the caller in it ("XLA").
static std::string opkit_slot_run(int64_t slot, std::vector<PyObject*>& inputs, std::vector<PyObject*>& targets,
                                  std::string error, const char* caller)
{
    if (error.empty() && (slot < 0 || (size_t)slot >= opkit_functions.size()))
        error = "no bridged opkit graph in slot " + std::to_string(slot) + " of this process";
    size_t n_inputs = inputs.size();
    PyObject* result = NULL;
    if (error.empty()) {
        if (opkit_preallocated[slot]) inputs.insert(inputs.end(), targets.begin(), targets.end());
        result = PyObject_Vectorcall(opkit_functions[slot], inputs.data(), inputs.size(), NULL);
        if (!result) error = opkit_exception_text();
    }
    for (size_t k = 0; k < n_inputs; ++k) Py_DECREF(inputs[k]);
    size_t n_results = !result ? 0 : PyList_Check(result) ? (size_t)PyList_GET_SIZE(result) : 1;
    if (error.empty() && n_results != targets.size())
        error = "the compiled graph returned " + std::to_string(n_results) + " outputs, " + caller + " expects " +
                std::to_string(targets.size());
    for (size_t k = 0; k < targets.size() && error.empty(); ++k)
        error = opkit_store_result(k, PyList_Check(result) ? PyList_GET_ITEM(result, k) : result, targets[k], caller);
    Py_XDECREF(result);
    for (PyObject* target : targets) Py_DECREF(target);
    if (error.empty()) return error;
    const std::string& label = slot >= 0 && (size_t)slot < opkit_labels.size() ? opkit_labels[slot] : "opkit";
    return label + ": " + error;
}

// register(function, label, preallocated) -> slot: the handler calls `function` for that slot from now on,
// with each output's array after the inputs when `preallocated` is true.
static PyObject* opkit_register_function(PyObject* module, PyObject* const* args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "register(function, label, preallocated)");
        return NULL;
    }
    int preallocated = PyObject_IsTrue(args[2]);
    if (preallocated < 0) return NULL;
    const char* label = PyUnicode_AsUTF8(args[1]);
    if (!label) return NULL;
    Py_INCREF(args[0]);
    opkit_functions.push_back(args[0]);
    opkit_labels.push_back(label);
    opkit_preallocated.push_back(preallocated);
    return PyLong_FromSsize_t((Py_ssize_t)opkit_functions.size() - 1);
}

// opkit's XLA FFI handler (opkit.bridge.jax_ffi): one handler for every bridged graph.
//
// A jitted call of a bridged op reaches OpkitCall with the graph's slot as an attribute. Under the GIL
// it wraps each XLA input buffer as a read-only numpy array (no copy), calls the slot's compiled
// opkit function (a C object: FunctionBase over the graph's module, see templates/fastcall.cpp, or a
// one-node module's runner that also takes each output's array, which the op's C code writes into
// when it reuses its output) and copies each result that is not already XLA's output buffer into it,
// after checking its dtype and shape.
// OpkitNoop does nothing: the benchmark's measure of the FFI machinery itself.
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <chrono>
#include <cstdint>
#include <unistd.h>
#include <string>
#include <vector>
#include "xla/ffi/api/ffi.h"
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

namespace ffi = xla::ffi;

// slot -> (compiled function, label, whether it takes the outputs' arrays too); only appended to, under the
// GIL; entries live for the process (a jitted executable may hold a slot number as long as it lives)
static std::vector<PyObject*> opkit_functions;
static std::vector<std::string> opkit_labels;
static std::vector<int> opkit_preallocated;
static int64_t opkit_nonce = 0;

static int opkit_typenum(ffi::DataType type)
{
    switch (type) {
    case ffi::DataType::PRED: return NPY_BOOL;
    case ffi::DataType::S8: return NPY_INT8;
    case ffi::DataType::S16: return NPY_INT16;
    case ffi::DataType::S32: return NPY_INT32;
    case ffi::DataType::S64: return NPY_INT64;
    case ffi::DataType::U8: return NPY_UINT8;
    case ffi::DataType::U16: return NPY_UINT16;
    case ffi::DataType::U32: return NPY_UINT32;
    case ffi::DataType::U64: return NPY_UINT64;
    case ffi::DataType::F16: return NPY_HALF;
    case ffi::DataType::F32: return NPY_FLOAT32;
    case ffi::DataType::F64: return NPY_FLOAT64;
    case ffi::DataType::C64: return NPY_COMPLEX64;
    case ffi::DataType::C128: return NPY_COMPLEX128;
    default: return -1;
    }
}

// A numpy array over an XLA buffer (no copy): read-only for inputs, writable for outputs.
static PyObject* opkit_wrap(ffi::AnyBuffer buffer, bool writable, std::string* error)
{
    int typenum = opkit_typenum(buffer.element_type());
    if (typenum < 0) {
        *error = "an XLA buffer of element type " + std::to_string((int)buffer.element_type()) +
                 " has no numpy dtype";
        return NULL;
    }
    auto dims = buffer.dimensions();
    npy_intp shape[NPY_MAXDIMS];
    if ((int)dims.size() > NPY_MAXDIMS) {
        *error = "an XLA buffer has more dimensions than numpy allows";
        return NULL;
    }
    npy_intp count = 1;
    for (size_t k = 0; k < dims.size(); ++k) {
        shape[k] = (npy_intp)dims[k];
        count *= shape[k];
    }
    void* data = count ? buffer.untyped_data() : NULL;  // an empty array: numpy allocates its own
    int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
    return PyArray_New(&PyArray_Type, (int)dims.size(), shape, typenum, NULL, data, 0, flags, NULL);
}

// The pending Python exception as text (its notes too), cleared.
static std::string opkit_exception_text()
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
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

static std::string opkit_run(int64_t slot, ffi::RemainingArgs args, ffi::RemainingRets rets)
{
    if (slot < 0 || (size_t)slot >= opkit_functions.size())
        return "no bridged opkit graph in slot " + std::to_string(slot) + " of this process";
    const std::string& label = opkit_labels[slot];
    std::string error;
    std::vector<PyObject*> inputs, targets;
    for (size_t k = 0; k < args.size() && error.empty(); ++k) {
        auto buffer = args.get<ffi::AnyBuffer>(k);
        if (buffer.has_error()) {
            error = "input " + std::to_string(k) + " is not a buffer";
            break;
        }
        PyObject* array = opkit_wrap(*buffer, false, &error);
        if (!array && error.empty()) error = opkit_exception_text();
        if (array) inputs.push_back(array);
    }
    for (size_t k = 0; k < rets.size() && error.empty(); ++k) {
        auto ret = rets.get<ffi::AnyBuffer>(k);
        if (ret.has_error()) {
            error = "output " + std::to_string(k) + " is not a buffer";
            break;
        }
        PyObject* target = opkit_wrap(**ret, true, &error);
        if (!target && error.empty()) error = opkit_exception_text();
        if (target) targets.push_back(target);
    }
    size_t n_inputs = inputs.size();
    if (error.empty() && opkit_preallocated[slot]) inputs.insert(inputs.end(), targets.begin(), targets.end());
    PyObject* result = NULL;
    if (error.empty()) {
        result = PyObject_Vectorcall(opkit_functions[slot], inputs.data(), inputs.size(), NULL);
        if (!result) error = opkit_exception_text();
    }
    for (size_t k = 0; k < n_inputs; ++k) Py_DECREF(inputs[k]);
    if (!error.empty()) {
        Py_XDECREF(result);
        for (PyObject* target : targets) Py_DECREF(target);
        return label + ": " + error;
    }
    size_t n_results = PyList_Check(result) ? (size_t)PyList_GET_SIZE(result) : 1;
    if (n_results != rets.size()) {
        Py_DECREF(result);
        for (PyObject* target : targets) Py_DECREF(target);
        return label + ": the compiled graph returned " + std::to_string(n_results) + " outputs, XLA expects " +
               std::to_string(rets.size());
    }
    for (size_t k = 0; k < rets.size() && error.empty(); ++k) {
        PyObject* item = PyList_Check(result) ? PyList_GET_ITEM(result, k) : result;
        PyObject* target = targets[k];
        PyArrayObject* out = (PyArrayObject*)target;
        // a 0-d output from Python code may be a numpy scalar: as an array, its dtype is checked below
        PyObject* value = PyArray_Check(item) ? (Py_INCREF(item), item) : PyArray_FromAny(item, NULL, 0, 0, 0, NULL);
        if (!value) {
            error = "output " + std::to_string(k) + " is not an array: " + opkit_exception_text();
        } else {
            PyArrayObject* got = (PyArrayObject*)value;
            bool same = PyArray_NDIM(got) == PyArray_NDIM(out) &&
                        PyArray_EquivTypenums(PyArray_TYPE(got), PyArray_TYPE(out));
            for (int d = 0; same && d < PyArray_NDIM(out); ++d) same = PyArray_DIM(got, d) == PyArray_DIM(out, d);
            if (!same) {
                PyObject* got_text = PyObject_Repr((PyObject*)PyArray_DESCR(got));
                PyObject* got_shape = PyObject_GetAttrString(value, "shape");
                PyObject* want_shape = PyObject_GetAttrString(target, "shape");
                PyObject* want_text = PyObject_Repr((PyObject*)PyArray_DESCR(out));
                PyObject* text = (got_text && got_shape && want_shape && want_text)
                    ? PyUnicode_FromFormat("output %zd is %U of shape %S; XLA expects %U of shape %S (from "
                                           "infer_shape and the output type)", (Py_ssize_t)k, got_text,
                                           got_shape, want_text, want_shape) : NULL;
                const char* chars = text ? PyUnicode_AsUTF8(text) : NULL;
                error = chars ? chars : "an output's dtype or shape is not what XLA expects";
                Py_XDECREF(text);
                Py_XDECREF(got_text);
                Py_XDECREF(got_shape);
                Py_XDECREF(want_shape);
                Py_XDECREF(want_text);
                PyErr_Clear();
            } else if (PyArray_SIZE(out) && !(PyArray_DATA(got) == PyArray_DATA(out) && PyArray_IS_C_CONTIGUOUS(got))
                       && PyArray_CopyInto(out, got) < 0) {  // (written into XLA's buffer by the op: no copy)
                error = opkit_exception_text();
            }
        }
        Py_XDECREF(value);
    }
    Py_DECREF(result);
    for (PyObject* target : targets) Py_DECREF(target);
    return error.empty() ? error : label + ": " + error;
}

// XLA's CPU threads flush subnormals to zero (FTZ/DAZ); an op's C code is compiled for IEEE arithmetic,
// as numpy runs: the handler runs it with subnormals kept, then gives XLA back its own mode.
struct OpkitIeeeSubnormals {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int flush, denormals;
    OpkitIeeeSubnormals() : flush(_MM_GET_FLUSH_ZERO_MODE()), denormals(_MM_GET_DENORMALS_ZERO_MODE()) {
        _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_OFF);
        _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_OFF);
    }
    ~OpkitIeeeSubnormals() {
        _MM_SET_FLUSH_ZERO_MODE(flush);
        _MM_SET_DENORMALS_ZERO_MODE(denormals);
    }
#elif defined(__aarch64__)
    uint64_t fpcr;
    OpkitIeeeSubnormals() {
        __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
        uint64_t ieee = fpcr & ~(uint64_t(1) << 24);  // FZ off
        __asm__ volatile("msr fpcr, %0" : : "r"(ieee));
    }
    ~OpkitIeeeSubnormals() { __asm__ volatile("msr fpcr, %0" : : "r"(fpcr)); }
#endif
};

static ffi::Error opkit_call(int64_t slot, int64_t nonce, ffi::RemainingArgs args, ffi::RemainingRets rets)
{
    if (nonce != opkit_nonce)  // an executable compiled by another process (a persistent cache)
        return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                          "opkit: this XLA executable calls a bridged opkit graph of another process; "
                          "call opkit.bridge.jax.as_jax_op(op) in this process and trace the function again");
    std::string error;
    {
        OpkitIeeeSubnormals ieee;
        PyGILState_STATE gil = PyGILState_Ensure();
        error = opkit_run(slot, args, rets);
        PyGILState_Release(gil);
    }
    if (!error.empty()) return ffi::Error(ffi::ErrorCode::kInternal, error);
    return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(OpkitCall, opkit_call,
                              ffi::Ffi::Bind().Attr<int64_t>("slot").Attr<int64_t>("nonce")
                                  .RemainingArgs().RemainingRets());

static ffi::Error opkit_noop(ffi::RemainingArgs args, ffi::RemainingRets rets)
{
    return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(OpkitNoop, opkit_noop, ffi::Ffi::Bind().RemainingArgs().RemainingRets());

// register(function, label, preallocated) -> slot: the handler calls `function` for that slot from now on,
// with each output's array after the inputs when `preallocated` is true.
static PyObject* register_function(PyObject* module, PyObject* const* args, Py_ssize_t nargs)
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

static PyObject* handler_capsule(PyObject* module, PyObject* name)
{
    const char* which = PyUnicode_AsUTF8(name);
    if (!which) return NULL;
    void* handler = std::string(which) == "noop" ? (void*)OpkitNoop : (void*)OpkitCall;
    return PyCapsule_New(handler, NULL, NULL);
}

static PyObject* get_nonce(PyObject* module, PyObject* unused)
{
    return PyLong_FromLongLong(opkit_nonce);
}

static PyMethodDef module_methods[] = {
    {"register", (PyCFunction)(void(*)(void))register_function, METH_FASTCALL, "register(function, label, preallocated) -> slot"},
    {"capsule", handler_capsule, METH_O, "capsule('call' or 'noop'): the XLA FFI handler"},
    {"nonce", get_nonce, METH_NOARGS, "This process's nonce (the handler refuses other ones)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "OPKIT_MODULE_NAME", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_OPKIT_MODULE_NAME(void)
{
    import_array();
    // differs between processes: the start time, the process id and where this module was loaded (ASLR)
    opkit_nonce = (int64_t)std::chrono::steady_clock::now().time_since_epoch().count() ^
                  ((int64_t)getpid() << 40) ^ (int64_t)(intptr_t)&opkit_functions;
    return PyModule_Create(&module_def);
}

// opkit's XLA FFI handler (opkit.bridge.jax_ffi): one handler for every bridged graph.
//
// A jitted call of a bridged op reaches OpkitCall with the graph's slot as an attribute. Under the GIL
// it wraps each XLA input buffer as a read-only numpy array (no copy), calls the slot's compiled
// opkit function (a C object: FunctionBase over the graph's module, see templates/fastcall.cpp, or a
// one-node module's runner that also takes each output's array, which the op's C code writes into
// when it reuses its output) and copies each result that is not already XLA's output buffer into it,
// after checking its dtype and shape.
// OpkitNoop does nothing: the benchmark's measure of the FFI machinery itself.
#include "slot_call.h"
#include <chrono>
#include <unistd.h>
#include "xla/ffi/api/ffi.h"
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

namespace ffi = xla::ffi;

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
    int ndim = (int)dims.size() > NPY_MAXDIMS ? NPY_MAXDIMS + 1 : (int)dims.size();
    for (int k = 0; k < ndim && k < NPY_MAXDIMS; ++k) shape[k] = (npy_intp)dims[k];
    return opkit_wrap_raw(buffer.untyped_data(), typenum, ndim, shape, NULL, writable, error);
}

static std::string opkit_run(int64_t slot, ffi::RemainingArgs args, ffi::RemainingRets rets)
{
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
    return opkit_slot_run(slot, inputs, targets, error, "XLA");
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
    {"register", (PyCFunction)(void(*)(void))opkit_register_function, METH_FASTCALL, "register(function, label, preallocated) -> slot"},
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

// opkit's call path: the base class of opkit.Function, so f(...) reaches the compiled
// graph without a Python frame. Trusted calls go straight to the runner; other calls
// check each argument in C (exact ndarray, equivalent dtype, ndim, aligned, native order) and only
// fall back to the Python filter (conversions, error messages) when a check fails.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
#include <numpy/arrayobject.h>
#include <cstddef>

#define MAX_FAST_ARGS 64

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject* runner;        // the compiled graph: runner(*inputs) -> output or list
    PyObject* slow_call;     // unbound Python function: slow_call(self, *args, **kwargs)
    int trust_input;
    int wrap;                // wrap a single output in a list
    int n_inputs;
    int typenums[MAX_FAST_ARGS];   // -1: no fast check possible for this input
    int ndims[MAX_FAST_ARGS];
} FunctionBase;

static int args_ok(FunctionBase* f, PyObject* const* args, Py_ssize_t nargs)
{
    if (nargs != f->n_inputs || nargs > MAX_FAST_ARGS) return 0;
    for (Py_ssize_t k = 0; k < nargs; ++k) {
        PyObject* a = args[k];
        // A subclass (np.ma, np.matrix, ...), an unaligned or byte-swapped array goes to the Python
        // filter, which converts it or says why not; an equivalent type number (NPY_LONGLONG for an
        // int64 input on Linux) is the same data, and the module's extract tags it as declared.
        if (f->typenums[k] < 0 || !PyArray_CheckExact(a)) return 0;
        PyArrayObject* arr = (PyArrayObject*)a;
        if (PyArray_NDIM(arr) != f->ndims[k] || !PyArray_ISALIGNED(arr) || PyArray_ISBYTESWAPPED(arr))
            return 0;
        if (PyArray_TYPE(arr) != f->typenums[k] && !PyArray_EquivTypenums(PyArray_TYPE(arr), f->typenums[k]))
            return 0;
    }
    return 1;
}

static PyObject* wrap_result(FunctionBase* f, PyObject* result)
{
    if (!f->wrap || !result) return result;
    PyObject* list = PyList_New(1);
    if (!list) { Py_DECREF(result); return NULL; }
    PyList_SET_ITEM(list, 0, result);
    return list;
}

static PyObject* slow_path(FunctionBase* f, PyObject* const* args, size_t nargsf, PyObject* kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject* small[16];
    PyObject** stack = total + 1 <= 16 ? small : (PyObject**)PyMem_Malloc((total + 1) * sizeof(PyObject*));
    if (!stack) return PyErr_NoMemory();
    stack[0] = (PyObject*)f;
    for (Py_ssize_t k = 0; k < total; ++k) stack[k + 1] = args[k];
    PyObject* result = PyObject_Vectorcall(f->slow_call, stack, nargs + 1, kwnames);
    if (stack != small) PyMem_Free(stack);
    return result;
}

static PyObject* function_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames)
{
    FunctionBase* f = (FunctionBase*)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (f->runner && !kwnames && (f->trust_input ? nargs == f->n_inputs : args_ok(f, args, nargs)))
        return wrap_result(f, PyObject_Vectorcall(f->runner, args, nargs, NULL));
    if (!f->slow_call) {
        PyErr_SetString(PyExc_RuntimeError, "opkit function is not configured");
        return NULL;
    }
    return slow_path(f, args, nargsf, kwnames);
}

static PyObject* function_new(PyTypeObject* type, PyObject* args, PyObject* kwds)
{
    FunctionBase* f = (FunctionBase*)type->tp_alloc(type, 0);
    if (!f) return NULL;
    f->vectorcall = function_call;
    f->runner = NULL;
    f->slow_call = NULL;
    f->trust_input = 0;
    f->wrap = 0;
    f->n_inputs = 0;
    return (PyObject*)f;
}

static int function_traverse(PyObject* self, visitproc visit, void* arg)
{
    FunctionBase* f = (FunctionBase*)self;
    Py_VISIT(f->runner);
    Py_VISIT(f->slow_call);
    return 0;
}

static int function_clear(PyObject* self)
{
    FunctionBase* f = (FunctionBase*)self;
    Py_CLEAR(f->runner);
    Py_CLEAR(f->slow_call);
    return 0;
}

static void function_dealloc(PyObject* self)
{
    PyObject_GC_UnTrack(self);
    function_clear(self);
    Py_TYPE(self)->tp_free(self);
}

// _configure(runner, slow_call, wrap, signature): signature is a tuple of (typenum, ndim) or None.
static PyObject* function_configure(PyObject* self, PyObject* const* args, Py_ssize_t nargs)
{
    FunctionBase* f = (FunctionBase*)self;
    if (nargs != 4 || !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "_configure(runner, slow_call, wrap, signature)");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(args[3]);
    if (n > MAX_FAST_ARGS) n = MAX_FAST_ARGS + 1;   // too many: never the fast path
    f->n_inputs = (int)PyTuple_GET_SIZE(args[3]);
    for (Py_ssize_t k = 0; k < n && k < MAX_FAST_ARGS; ++k) {
        PyObject* item = PyTuple_GET_ITEM(args[3], k);
        f->typenums[k] = -1;
        f->ndims[k] = 0;
        if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2) {
            f->typenums[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 0));
            f->ndims[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 1));
            if (PyErr_Occurred()) return NULL;
        }
    }
    PyObject* runner = args[0] == Py_None ? NULL : args[0];
    Py_XINCREF(runner);
    Py_XSETREF(f->runner, runner);
    Py_INCREF(args[1]);
    Py_XSETREF(f->slow_call, args[1]);
    f->wrap = PyObject_IsTrue(args[2]);
    Py_RETURN_NONE;
}

static PyObject* get_trust_input(PyObject* self, void*)
{
    return PyBool_FromLong(((FunctionBase*)self)->trust_input);
}

static int set_trust_input(PyObject* self, PyObject* value, void*)
{
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "trust_input cannot be deleted");
        return -1;
    }
    int truth = PyObject_IsTrue(value);
    if (truth < 0) return -1;
    ((FunctionBase*)self)->trust_input = truth;
    return 0;
}

static PyObject* get_runner(PyObject* self, void*)
{
    PyObject* runner = ((FunctionBase*)self)->runner;
    if (!runner) Py_RETURN_NONE;
    Py_INCREF(runner);
    return runner;
}

static PyGetSetDef function_getset[] = {
    {"trust_input", get_trust_input, set_trust_input,
     "Skip argument checks and conversions: the caller promises exact, valid arrays.", NULL},
    {"_runner", get_runner, NULL, "The compiled graph this function calls.", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef function_methods[] = {
    {"_configure", (PyCFunction)(void(*)(void))function_configure, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject FunctionBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "opkit.FunctionBase",
    sizeof(FunctionBase),
};

// Python subclasses of a vectorcall type lose Py_TPFLAGS_HAVE_VECTORCALL before 3.12; the
// subclass does not override __call__, so the inherited slot is correct: turn the flag back on.
static PyObject* enable_vectorcall(PyObject* module, PyObject* cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject*)cls, &FunctionBaseType)) {
        PyErr_SetString(PyExc_TypeError, "enable_vectorcall takes a FunctionBase subclass");
        return NULL;
    }
    PyTypeObject* type = (PyTypeObject*)cls;
    if (type->tp_call == PyVectorcall_Call && type->tp_vectorcall_offset == FunctionBaseType.tp_vectorcall_offset)
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"enable_vectorcall", enable_vectorcall, METH_O, NULL},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "OPKIT_MODULE_NAME", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_OPKIT_MODULE_NAME(void)
{
    import_array();
    FunctionBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC
                                | Py_TPFLAGS_HAVE_VECTORCALL;
    FunctionBaseType.tp_vectorcall_offset = offsetof(FunctionBase, vectorcall);
    FunctionBaseType.tp_call = PyVectorcall_Call;
    FunctionBaseType.tp_new = function_new;
    FunctionBaseType.tp_dealloc = function_dealloc;
    FunctionBaseType.tp_traverse = function_traverse;
    FunctionBaseType.tp_clear = function_clear;
    FunctionBaseType.tp_getset = function_getset;
    FunctionBaseType.tp_methods = function_methods;
    FunctionBaseType.tp_doc = "Base of opkit.Function: the C call path.";
    if (PyType_Ready(&FunctionBaseType) < 0) return NULL;
    PyObject* module = PyModule_Create(&module_def);
    if (!module) return NULL;
    Py_INCREF(&FunctionBaseType);
    if (PyModule_AddObject(module, "FunctionBase", (PyObject*)&FunctionBaseType) < 0) {
        Py_DECREF(&FunctionBaseType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

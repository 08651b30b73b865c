// opkit's call path: the base class of opkit.Function, so f(...) reaches the compiled
// graph without a Python frame. Trusted calls go straight to the runner; other calls
// check each argument in C (exact ndarray, equivalent dtype, ndim, aligned, native order) and only
// fall back to the Python filter (conversions, error messages) when a check fails.
// EagerCompute is Op.compute's warm path (opkit.link.eager): (op, input types) -> compiled function.
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

// ---- Op.compute: a method descriptor that dispatches on (op, input types) in C ----
// A table keyed by the op object's address (the op is held, so the address is not reused while its
// entry lives) holds, per op, up to EAGER_PER_OP entries (typenum, ndim) per input -> compiled function.
// An argument matches an entry only if it is an exact ndarray in native byte order whose type number
// and ndim are the entry's: numpy scalars, Python numbers, lists, subclasses and byte-swapped arrays
// (and every miss) go to the Python compute, which does what it always did. Entries are only made for
// the numeric dtypes (bool, ints, floats, complex), whose type number and byte order are the whole dtype.

#define EAGER_MAX_ARGS 16
#define EAGER_PER_OP 16

typedef struct {
    int nargs;
    int typenums[EAGER_MAX_ARGS];
    int ndims[EAGER_MAX_ARGS];
    PyObject* function;
} EagerEntry;

typedef struct {
    PyObject* op;             // NULL: an empty slot (the table is only ever cleared whole)
    int n_entries;
    EagerEntry* entries;      // EAGER_PER_OP of them, allocated with the slot's first entry
} EagerSlot;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject* fallback;       // the Python Op.compute: fallback(op, *values)
    EagerSlot* slots;         // open addressing, linear probing; capacity a power of two
    Py_ssize_t capacity;
    Py_ssize_t used;
} EagerCompute;

static inline size_t eager_hash(PyObject* op, Py_ssize_t capacity)
{
    size_t h = (size_t)op >> 4;
    h *= (size_t)0x9E3779B97F4A7C15ull;
    return (h >> 17) & (size_t)(capacity - 1);
}

static EagerSlot* eager_find(EagerCompute* d, PyObject* op)
{
    if (!d->capacity) return NULL;
    size_t mask = (size_t)(d->capacity - 1);
    for (size_t i = eager_hash(op, d->capacity);; i = (i + 1) & mask) {
        EagerSlot* slot = &d->slots[i];
        if (slot->op == op) return slot;
        if (!slot->op) return NULL;
    }
}

static inline int eager_matches(const EagerEntry* e, PyObject* const* args, Py_ssize_t n)
{
    if (e->nargs != n) return 0;
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject* a = args[k];
        if (!PyArray_CheckExact(a)) return 0;
        PyArrayObject* arr = (PyArrayObject*)a;
        if (PyArray_TYPE(arr) != e->typenums[k] || PyArray_NDIM(arr) != e->ndims[k] || PyArray_ISBYTESWAPPED(arr))
            return 0;
    }
    return 1;
}

static PyObject* eager_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames)
{
    EagerCompute* d = (EagerCompute*)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs >= 1 && !kwnames) {
        EagerSlot* slot = eager_find(d, args[0]);
        if (slot) {
            for (int i = 0; i < slot->n_entries; ++i) {
                if (eager_matches(&slot->entries[i], args + 1, nargs - 1)) {
                    PyObject* function = slot->entries[i].function;
                    Py_INCREF(function);  // the call may run Python code that clears the table
                    PyObject* result = PyObject_Vectorcall(function, args + 1, nargs - 1, NULL);
                    Py_DECREF(function);
                    return result;
                }
            }
        }
    }
    if (!d->fallback) {
        PyErr_SetString(PyExc_RuntimeError, "opkit eager dispatch is not configured");
        return NULL;
    }
    return PyObject_Vectorcall(d->fallback, args, nargsf, kwnames);
}

// Empty the table; the references go only after it is consistent (a __del__ may call compute).
static void eager_clear_table(EagerCompute* d)
{
    EagerSlot* slots = d->slots;
    Py_ssize_t capacity = d->capacity;
    d->slots = NULL;
    d->capacity = 0;
    d->used = 0;
    if (!slots) return;
    for (Py_ssize_t i = 0; i < capacity; ++i) {
        if (!slots[i].op) continue;
        for (int j = 0; j < slots[i].n_entries; ++j) Py_DECREF(slots[i].entries[j].function);
        PyMem_Free(slots[i].entries);
        Py_DECREF(slots[i].op);
    }
    PyMem_Free(slots);
}

static int eager_grow(EagerCompute* d)
{
    Py_ssize_t capacity = d->capacity ? d->capacity * 2 : 64;
    EagerSlot* slots = (EagerSlot*)PyMem_Calloc((size_t)capacity, sizeof(EagerSlot));
    if (!slots) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < d->capacity; ++i) {
        if (!d->slots[i].op) continue;
        size_t mask = (size_t)(capacity - 1);
        size_t j = eager_hash(d->slots[i].op, capacity);
        while (slots[j].op) j = (j + 1) & mask;
        slots[j] = d->slots[i];
    }
    PyMem_Free(d->slots);
    d->slots = slots;
    d->capacity = capacity;
    return 0;
}

// _register(op, signature, function): signature is a tuple of (typenum, ndim) per input. Returns True
// if the entry was made (False: too many inputs, or the op has EAGER_PER_OP entries already).
static PyObject* eager_register(PyObject* self, PyObject* const* args, Py_ssize_t nargs)
{
    EagerCompute* d = (EagerCompute*)self;
    if (nargs != 3 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_register(op, signature, function)");
        return NULL;
    }
    PyObject* op = args[0];
    PyObject* signature = args[1];
    PyObject* function = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(signature);
    if (n > EAGER_MAX_ARGS) Py_RETURN_FALSE;
    EagerEntry entry;
    entry.nargs = (int)n;
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject* item = PyTuple_GET_ITEM(signature, k);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "_register: each input's signature is (typenum, ndim)");
            return NULL;
        }
        entry.typenums[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 0));
        entry.ndims[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 1));
        if (PyErr_Occurred()) return NULL;
    }
    EagerSlot* slot = eager_find(d, op);
    if (!slot) {
        EagerEntry* entries = (EagerEntry*)PyMem_Malloc(EAGER_PER_OP * sizeof(EagerEntry));
        if (!entries) return PyErr_NoMemory();
        if ((d->used + 1) * 2 > d->capacity && eager_grow(d) < 0) {
            PyMem_Free(entries);
            return NULL;
        }
        size_t mask = (size_t)(d->capacity - 1);
        size_t i = eager_hash(op, d->capacity);
        while (d->slots[i].op) i = (i + 1) & mask;
        slot = &d->slots[i];
        Py_INCREF(op);
        slot->op = op;
        slot->n_entries = 0;
        slot->entries = entries;
        d->used += 1;
    }
    for (int i = 0; i < slot->n_entries; ++i) {
        EagerEntry* e = &slot->entries[i];
        if (e->nargs != entry.nargs) continue;
        int same = 1;
        for (int k = 0; k < entry.nargs && same; ++k)
            same = e->typenums[k] == entry.typenums[k] && e->ndims[k] == entry.ndims[k];
        if (same) {  // the same types compiled again (another thread): keep one, release the other last
            PyObject* old = e->function;
            Py_INCREF(function);
            e->function = function;
            Py_DECREF(old);
            Py_RETURN_TRUE;
        }
    }
    if (slot->n_entries >= EAGER_PER_OP) Py_RETURN_FALSE;
    Py_INCREF(function);
    entry.function = function;
    slot->entries[slot->n_entries++] = entry;
    Py_RETURN_TRUE;
}

static PyObject* eager_clear_method(PyObject* self, PyObject* unused)
{
    eager_clear_table((EagerCompute*)self);
    Py_RETURN_NONE;
}

// _lookup(op, *values): the function the C path would call for these values, or None (for tests).
static PyObject* eager_lookup(PyObject* self, PyObject* const* args, Py_ssize_t nargs)
{
    EagerCompute* d = (EagerCompute*)self;
    if (nargs >= 1) {
        EagerSlot* slot = eager_find(d, args[0]);
        for (int i = 0; slot && i < slot->n_entries; ++i) {
            if (eager_matches(&slot->entries[i], args + 1, nargs - 1)) {
                Py_INCREF(slot->entries[i].function);
                return slot->entries[i].function;
            }
        }
    }
    Py_RETURN_NONE;
}

static PyObject* eager_len(PyObject* self, PyObject* unused)
{
    return PyLong_FromSsize_t(((EagerCompute*)self)->used);
}

static PyObject* eager_new(PyTypeObject* type, PyObject* args, PyObject* kwds)
{
    PyObject* fallback = NULL;
    if (!PyArg_ParseTuple(args, "O:EagerCompute", &fallback)) return NULL;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "EagerCompute(fallback): fallback must be callable");
        return NULL;
    }
    EagerCompute* d = (EagerCompute*)type->tp_alloc(type, 0);
    if (!d) return NULL;
    d->vectorcall = eager_call;
    Py_INCREF(fallback);
    d->fallback = fallback;
    d->slots = NULL;
    d->capacity = 0;
    d->used = 0;
    return (PyObject*)d;
}

static int eager_traverse(PyObject* self, visitproc visit, void* arg)
{
    EagerCompute* d = (EagerCompute*)self;
    Py_VISIT(d->fallback);
    for (Py_ssize_t i = 0; i < d->capacity; ++i) {
        if (!d->slots[i].op) continue;
        Py_VISIT(d->slots[i].op);
        for (int j = 0; j < d->slots[i].n_entries; ++j) Py_VISIT(d->slots[i].entries[j].function);
    }
    return 0;
}

static int eager_clear(PyObject* self)
{
    EagerCompute* d = (EagerCompute*)self;
    eager_clear_table(d);
    Py_CLEAR(d->fallback);
    return 0;
}

static void eager_dealloc(PyObject* self)
{
    PyObject_GC_UnTrack(self);
    eager_clear(self);
    Py_TYPE(self)->tp_free(self);
}

// As a function found on a class: obj.compute is a bound method of obj (the vectorcall above gets
// obj first). Py_TPFLAGS_METHOD_DESCRIPTOR lets `op.compute(a, b)` skip making that bound method.
static PyObject* eager_descr_get(PyObject* self, PyObject* obj, PyObject* type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyObject* eager_fallback_attr(PyObject* self, void* name)
{
    EagerCompute* d = (EagerCompute*)self;
    if (!d->fallback) Py_RETURN_NONE;
    return PyObject_GetAttrString(d->fallback, (const char*)name);
}

static PyObject* eager_wrapped(PyObject* self, void*)
{
    EagerCompute* d = (EagerCompute*)self;
    if (!d->fallback) Py_RETURN_NONE;
    Py_INCREF(d->fallback);
    return d->fallback;
}

static PyGetSetDef eager_getset[] = {
    {"__doc__", eager_fallback_attr, NULL, NULL, (void*)"__doc__"},
    {"__name__", eager_fallback_attr, NULL, NULL, (void*)"__name__"},
    {"__qualname__", eager_fallback_attr, NULL, NULL, (void*)"__qualname__"},
    {"__module__", eager_fallback_attr, NULL, NULL, (void*)"__module__"},
    {"__wrapped__", eager_wrapped, NULL, "The Python compute this dispatcher falls back to.", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef eager_methods[] = {
    {"_register", (PyCFunction)(void(*)(void))eager_register, METH_FASTCALL, NULL},
    {"_lookup", (PyCFunction)(void(*)(void))eager_lookup, METH_FASTCALL, NULL},
    {"_clear", eager_clear_method, METH_NOARGS, NULL},
    {"_ops", eager_len, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject EagerComputeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    "opkit.EagerCompute",
    sizeof(EagerCompute),
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
    EagerComputeType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
                                | Py_TPFLAGS_METHOD_DESCRIPTOR;
    EagerComputeType.tp_vectorcall_offset = offsetof(EagerCompute, vectorcall);
    EagerComputeType.tp_call = PyVectorcall_Call;
    EagerComputeType.tp_new = eager_new;
    EagerComputeType.tp_dealloc = eager_dealloc;
    EagerComputeType.tp_traverse = eager_traverse;
    EagerComputeType.tp_clear = eager_clear;
    EagerComputeType.tp_descr_get = eager_descr_get;
    EagerComputeType.tp_getset = eager_getset;
    EagerComputeType.tp_methods = eager_methods;
    if (PyType_Ready(&EagerComputeType) < 0) return NULL;
    PyObject* module = PyModule_Create(&module_def);
    if (!module) return NULL;
    Py_INCREF(&EagerComputeType);
    if (PyModule_AddObject(module, "EagerCompute", (PyObject*)&EagerComputeType) < 0) {
        Py_DECREF(&EagerComputeType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&FunctionBaseType);
    if (PyModule_AddObject(module, "FunctionBase", (PyObject*)&FunctionBaseType) < 0) {
        Py_DECREF(&FunctionBaseType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

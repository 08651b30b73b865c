#section support_code
#include <math.h>
static int checked_sqrt_module_ready = 0;

#section init_code
checked_sqrt_module_ready = 1;  // runs once, when the module is imported

#section support_code_apply
static int APPLY_SPECIFIC(node_ready) = 0;

#section init_code_apply
APPLY_SPECIFIC(node_ready) = checked_sqrt_module_ready;

#section code
if (!APPLY_SPECIFIC(node_ready)) {
    PyErr_SetString(PyExc_RuntimeError, "CheckedSqrt: init_code or init_code_apply did not run");
    FAIL
}
// INPUT_0 and OUTPUT_0 name this node's arrays; DTYPE_, TYPENUM_ and ITEMSIZE_ describe them.
static_assert(sizeof(DTYPE_OUTPUT_0) == ITEMSIZE_OUTPUT_0, "ITEMSIZE_OUTPUT_0 is the element size");
if (OUTPUT_0 == NULL || PyArray_DIMS(OUTPUT_0)[0] != PyArray_DIMS(INPUT_0)[0]) {
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(INPUT_0), TYPENUM_OUTPUT_0, 0);
    if (OUTPUT_0 == NULL) FAIL
}
{
    npy_intp n = PyArray_DIMS(INPUT_0)[0];
    npy_intp stride = PyArray_STRIDES(INPUT_0)[0] / ITEMSIZE_INPUT_0;
    const DTYPE_INPUT_0* x = (const DTYPE_INPUT_0*)PyArray_DATA(INPUT_0);
    DTYPE_OUTPUT_0* z = (DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0);
    for (npy_intp i = 0; i < n; ++i) {
        if (x[i * stride] < 0) {
            PyErr_Format(PyExc_ValueError, "CheckedSqrt: negative input at index %d", (int)i);
            FAIL;
        }
        z[i] = (DTYPE_OUTPUT_0)sqrt((double)x[i * stride]);
    }
}

#section code_cleanup
// Runs after `code` on every call, whether or not it failed.
(void)INPUT_0;
(void)OUTPUT_0;

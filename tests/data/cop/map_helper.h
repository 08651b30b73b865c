// Included by an apply-specific section (no include guard: once per node), so the
// section's macros are defined here: APPLY_SPECIFIC(map) applies that file's
// APPLY_SPECIFIC(helper) to every element of x.
int APPLY_SPECIFIC(map)(PyArrayObject* x, PyArrayObject** out)
{
    if (*out == NULL || PyArray_DIMS(*out)[0] != PyArray_DIMS(x)[0]) {
        Py_XDECREF(*out);
        *out = (PyArrayObject*)PyArray_EMPTY(1, PyArray_DIMS(x), TYPENUM_OUTPUT_0, 0);
        if (*out == NULL) return 1;  // PyArray_EMPTY set a MemoryError
    }
    for (npy_intp i = 0; i < PyArray_DIMS(x)[0]; ++i) {
        DTYPE_INPUT_0 v = *(DTYPE_INPUT_0*)PyArray_GETPTR1(x, i);
        *(DTYPE_OUTPUT_0*)PyArray_GETPTR1(*out, i) = APPLY_SPECIFIC(helper)(v);
    }
    return 0;
}

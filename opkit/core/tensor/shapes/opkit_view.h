/* Making a view of an array: new dims and strides over the same data (dimshuffle.c, subtensor.c). */
#ifndef OPKIT_VIEW_SUPPORT
#define OPKIT_VIEW_SUPPORT
/* Replace *out with a new array viewing `base`'s memory at `data` with the given dims and strides.
   The view keeps `base` alive (its base object) and is writeable when `base` is. */
static int opkit_make_view(PyArrayObject** out, PyArrayObject* base, int nd, npy_intp* dims, npy_intp* strides,
                           char* data)
{
    PyArray_Descr* descr = PyArray_DESCR(base);
    Py_INCREF(descr);
    PyArrayObject* view = (PyArrayObject*)PyArray_NewFromDescr(
        &PyArray_Type, descr, nd, dims, strides, data, PyArray_FLAGS(base) & NPY_ARRAY_WRITEABLE, NULL);
    if (!view) return -1;
    Py_INCREF(base);
    if (PyArray_SetBaseObject(view, (PyObject*)base) < 0) { Py_DECREF(view); return -1; }
    Py_XDECREF(*out);
    *out = view;
    return 0;
}
#endif

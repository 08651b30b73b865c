// TensorType's support code (opkit/core/tensor/c_interface.py), once per module: the slow half of
// its extract, reached only when a value is not already exactly the array the C code reads.
// Brought in by the macro `support` of opkit/templates/tensor_type.c.j2 (jinja2 reads this file:
// it must hold no jinja2 delimiters).
#ifndef OPKIT_TENSOR_EXTRACT
#define OPKIT_TENSOR_EXTRACT
// Return a new reference to `obj` as a plain, aligned, native-order ndarray of exactly `typenum`
// with `ndim` dimensions, converting what numpy would convert without loss (an equivalent type
// number such as NPY_LONGLONG for NPY_INT64, an unaligned or byte-swapped array), or set
// TypeError and return NULL. `check_input` is 0 for values the module made itself or a Python
// op returned: anything numpy turns into such an array is then accepted.
static PyArrayObject* opkit_tensor_extract(PyObject* obj, int ndim, int typenum, const char* dtype,
                                           int check_input)
{
    PyArrayObject* arr;
    if (!PyArray_Check(obj)) {
        if (check_input) {
            PyErr_Format(PyExc_TypeError, "expected a numpy.ndarray, got %s", Py_TYPE(obj)->tp_name);
            return NULL;
        }
        arr = (PyArrayObject*)PyArray_FromAny(obj, PyArray_DescrFromType(typenum), 0, 0,
                                              NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED, NULL);
        if (!arr) return NULL;
    } else if (!PyArray_CheckExact(obj)) {
        // A subclass may carry meaning the C code would silently drop (np.ma's mask, np.matrix).
        PyErr_Format(PyExc_TypeError,
                     "expected a plain numpy.ndarray, got %s, a subclass of numpy.ndarray: the compiled code "
                     "reads only the data and would drop what the subclass adds (such as a mask); "
                     "pass np.asarray(value) to compute on the data alone", Py_TYPE(obj)->tp_name);
        return NULL;
    } else {
        arr = (PyArrayObject*)obj;
        Py_INCREF(arr);
    }
    if (PyArray_NDIM(arr) != ndim) {
        PyErr_Format(PyExc_TypeError, "expected an array with ndim %d, got ndim %d", ndim, PyArray_NDIM(arr));
        Py_DECREF(arr);
        return NULL;
    }
    if (PyArray_TYPE(arr) != typenum && !PyArray_EquivTypenums(PyArray_TYPE(arr), typenum)) {
        PyErr_Format(PyExc_TypeError, "expected an array of dtype %s, got an array of dtype %S (typenum %d)",
                     dtype, (PyObject*)PyArray_DESCR(arr), PyArray_TYPE(arr));
        Py_DECREF(arr);
        return NULL;
    }
    if (!PyArray_ISALIGNED(arr) || !PyArray_ISNOTSWAPPED(arr)) {
        // Reading raw bytes would give wrong numbers: copy to an aligned, native-order array.
        PyArrayObject* copy = (PyArrayObject*)PyArray_FromArray(arr, PyArray_DescrFromType(typenum),
                                                                NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED);
        Py_DECREF(arr);
        if (!copy) return NULL;
        arr = copy;
    }
    if (PyArray_TYPE(arr) != typenum) {
        // An equivalent type number: a view tagged with the declared one, for C code that compares them.
        PyArrayObject* view = (PyArrayObject*)PyArray_View(arr, PyArray_DescrFromType(typenum), NULL);
        Py_DECREF(arr);
        if (!view) return NULL;
        arr = view;
    }
    return arr;
}
#endif

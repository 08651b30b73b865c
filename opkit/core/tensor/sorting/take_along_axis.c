/* TakeAlongAxis's C (opkit/core/tensor/sorting/sort.py): g's lanes gathered by an int64 index array. */

#section code
{
    const int axis = (int)PARAMS->axis;
    PyArrayObject* g = opkit_contiguous(INPUT_0);
    PyArrayObject* index = g ? opkit_contiguous(INPUT_1) : NULL;
    PyArrayObject* taken = index ? opkit_empty_like(index, TYPENUM_OUTPUT_0) : NULL;
    int failed = !taken;
    for (int d = 0; !failed && d < PyArray_NDIM(g); ++d)
        if (d != axis && PyArray_DIMS(g)[d] != PyArray_DIMS(index)[d]) {
            PyErr_Format(PyExc_ValueError, "take_along_axis: the index has length %lld on axis %d, the array "
                         "%lld: they must agree on every axis but the taken one",
                         (long long)PyArray_DIMS(index)[d], d, (long long)PyArray_DIMS(g)[d]);
            failed = 1;
        }
    if (!failed) failed = opkit_take_lanes<DTYPE_OUTPUT_0>(g, index, taken, axis);
    Py_XDECREF(g);
    Py_XDECREF(index);
    if (failed) {
        Py_XDECREF(taken);
        FAIL
    }
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = taken;
}

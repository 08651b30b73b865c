/* Sort's C (opkit/core/tensor/sorting/sort.py): a C-contiguous copy of x, each lane along the axis sorted. */

#section code
{
    PyArrayObject* sorted = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_CORDER);
    if (!sorted) FAIL
    opkit_sort_lanes<DTYPE_INPUT_0>(sorted, (int)PARAMS->axis);
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = sorted;
}

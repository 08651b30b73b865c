/* Argsort's C (opkit/core/tensor/sorting/sort.py): the int64 indices that sort each lane, stably. */

#section code
{
    PyArrayObject* x = opkit_contiguous(INPUT_0);
    PyArrayObject* order = x ? opkit_empty_like(x, NPY_INT64) : NULL;
    if (order) opkit_argsort_lanes<DTYPE_INPUT_0>(x, order, (int)PARAMS->axis);
    Py_XDECREF(x);
    if (!order) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = order;
}

/* Argsort's C (opkit/core/tensor/sorting/sort.py): the int64 indices that sort each lane, stably, by numpy's own
   stable argsort (PyArray_ArgSort: radix sort for small integers, timsort otherwise; NaN last). */

#section code
{
    PyArrayObject* order = (PyArrayObject*)PyArray_ArgSort(INPUT_0, (int)PARAMS->axis, NPY_STABLESORT);
    if (order && PyArray_TYPE(order) != NPY_INT64) {  /* npy_intp is int64 on the platforms opkit builds for */
        PyArrayObject* wide = (PyArrayObject*)PyArray_Cast(order, NPY_INT64);
        Py_DECREF(order);
        order = wide;
    }
    if (!order) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = order;
}

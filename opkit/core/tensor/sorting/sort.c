/* Sort's C (opkit/core/tensor/sorting/sort.py): a C-contiguous copy of x, its lanes along the axis sorted by
   numpy's own sort (PyArray_Sort, quicksort: numpy's SIMD sorts where the CPU has them, NaN last), so the result
   is np.sort's, bit for bit (-0.0 and 0.0 in numpy's order too). */

#section code
{
    PyArrayObject* sorted = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_CORDER);
    if (!sorted) FAIL
    if (PyArray_NDIM(sorted) > 0 && PyArray_Sort(sorted, (int)PARAMS->axis, NPY_QUICKSORT) < 0) {
        Py_DECREF(sorted);
        FAIL
    }
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = sorted;
}

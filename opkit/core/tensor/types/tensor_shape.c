/* Shape's C for a TensorType input (registered by c_interface.py): its dimensions as an int64 vector,
   reusing the output array while its length fits. */

#section code
{
    npy_intp length = PyArray_NDIM(INPUT_0);
    if (!OUTPUT_0 || PyArray_DIMS(OUTPUT_0)[0] != length) {
        Py_XDECREF(OUTPUT_0);
        OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(1, &length, NPY_INT64, 0);
        if (!OUTPUT_0) FAIL
    }
    for (npy_intp k = 0; k < length; ++k)
        ((npy_int64*)PyArray_DATA(OUTPUT_0))[k] = PyArray_DIMS(INPUT_0)[k];
}

/* Shape's C for a GpuArrayType input (registered by opkit/gpu/ops/__init__.py): the lengths of the GPU array
   (an OpkitGpuArray*, opkit_gpu.h) as a host int64 vector; its data is not read. */

#section code
{
    npy_intp length = INPUT_0->ndim;
    if (!OUTPUT_0 || PyArray_DIMS(OUTPUT_0)[0] != length) {
        Py_XDECREF(OUTPUT_0);
        OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(1, &length, NPY_INT64, 0);
        if (!OUTPUT_0) FAIL
    }
    for (npy_intp k = 0; k < length; ++k)
        ((npy_int64*)PyArray_DATA(OUTPUT_0))[k] = INPUT_0->dims[k];
}

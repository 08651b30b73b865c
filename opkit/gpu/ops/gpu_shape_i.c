/* Shape_i's C for a GpuArrayType input (registered by opkit/gpu/ops/__init__.py): length SHAPE_I_INDEX (the
   op's i) of the GPU array as a host int64 scalar, after the guard of gpu_shape_i_check.c. */

#section code
if (!OUTPUT_0) {
    OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(0, NULL, NPY_INT64, 0);
    if (!OUTPUT_0) FAIL
}
((npy_int64*)PyArray_DATA(OUTPUT_0))[0] = INPUT_0->dims[SHAPE_I_INDEX];

/* Shape_i's C for a TensorType input (registered by c_interface.py): dimension SHAPE_I_INDEX (the op's i)
   as an int64 scalar, after the guard of tensor_shape_i_check.c. */

#section code
if (!OUTPUT_0) {
    OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(0, NULL, NPY_INT64, 0);
    if (!OUTPUT_0) FAIL
}
((npy_int64*)PyArray_DATA(OUTPUT_0))[0] = PyArray_DIMS(INPUT_0)[SHAPE_I_INDEX];

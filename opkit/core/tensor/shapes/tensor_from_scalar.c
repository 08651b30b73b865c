/* TensorFromScalar's C (opkit/core/tensor/shapes/scalar_tensor.py): a 0-d array holding the scalar variable's value. */

#section code
if (!OUTPUT_0) {
    OUTPUT_0 = (PyArrayObject*)PyArray_EMPTY(0, NULL, TYPENUM_OUTPUT_0, 0);
    if (!OUTPUT_0) FAIL
}
((DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0))[0] = INPUT_0;

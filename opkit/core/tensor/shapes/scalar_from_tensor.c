/* ScalarFromTensor's C (opkit/core/tensor/shapes/scalar_tensor.py): the element of a 0-d array (aligned, native byte order
   once extracted) as the numpy C scalar of its dtype. */

#section code
OUTPUT_0 = ((DTYPE_INPUT_0*)PyArray_DATA(INPUT_0))[0];

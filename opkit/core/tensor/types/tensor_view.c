/* ViewOp's C for a TensorType input (registered by c_interface.py): the input array itself. */

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = INPUT_0;
Py_XINCREF(OUTPUT_0);

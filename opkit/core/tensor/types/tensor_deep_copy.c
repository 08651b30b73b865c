/* DeepCopyOp's C for a TensorType input (registered by c_interface.py): a new copy of the array. */

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_NewCopy(INPUT_0, NPY_ANYORDER);
if (!OUTPUT_0) FAIL

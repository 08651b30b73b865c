/* Shape_i's guard for a TensorType input (registered by c_interface.py): IndexError unless the array has
   dimension SHAPE_I_INDEX (the op's i). */

#section code
if (PyArray_NDIM(INPUT_0) <= SHAPE_I_INDEX) {
    PyErr_Format(PyExc_IndexError, "Shape_i(%d) of an array with %d dimensions", SHAPE_I_INDEX, PyArray_NDIM(INPUT_0));
    FAIL
}

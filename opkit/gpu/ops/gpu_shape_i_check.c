/* Shape_i's guard for a GpuArrayType input (registered by opkit/gpu/ops/__init__.py): IndexError unless the
   GPU array has dimension SHAPE_I_INDEX (the op's i). */

#section code
if (INPUT_0->ndim <= SHAPE_I_INDEX) {
    PyErr_Format(PyExc_IndexError, "Shape_i(%d) of an array with %d dimensions", SHAPE_I_INDEX, INPUT_0->ndim);
    FAIL
}

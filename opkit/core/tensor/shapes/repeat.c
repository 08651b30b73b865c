/* Repeat's C (opkit/core/tensor/shapes/repeat_take.py): numpy.repeat through numpy's own C call, so that the
   result and the errors (repeats of the wrong length, negative repeats) are numpy's. */

#section code
{
    PyArrayObject* repeated = (PyArrayObject*)PyArray_Repeat(INPUT_0, (PyObject*)INPUT_1, (int)PARAMS->axis);
    if (!repeated) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = repeated;
}

/* Take's C (opkit/core/tensor/shapes/repeat_take.py): numpy.take through numpy's own C call (PyArray_TakeFrom),
   so that the result and the errors (an index out of bounds, a take from an empty axis) are numpy's. */

#section code
{
    PyArrayObject* taken = (PyArrayObject*)PyArray_TakeFrom(INPUT_0, (PyObject*)INPUT_1, (int)PARAMS->axis, NULL,
                                                            (NPY_CLIPMODE)PARAMS->clipmode);
    if (!taken) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = taken;
}

/* AdvancedSubtensor1's C (opkit/core/tensor/shapes/advanced_subtensor.py): x[idx] for an integer vector idx on
   axis 0, numpy's take. The index is read by opkit_index_array (every integer dtype, numpy's IndexError naming
   an index out of range, no uint64 wrapped to a negative index); numpy's take copies the rows. */

#section support_code
#include "opkit_reshape.h"
#include "opkit_index_array.h"

#section code
{
    PyArrayObject* idx = opkit_index_array(INPUT_1, PyArray_DIMS(INPUT_0)[0], 0);
    if (!idx) FAIL
    PyArrayObject* taken = (PyArrayObject*)PyArray_TakeFrom(INPUT_0, (PyObject*)idx, 0, NULL, NPY_RAISE);
    Py_DECREF(idx);
    if (!taken) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = taken;
}

#section support_code
static double add_ten(double v) { return v + 10.0; }

#section support_code_apply
static DTYPE_OUTPUT_0 APPLY_SPECIFIC(helper)(DTYPE_INPUT_0 v) { return add_ten(v) * 3.0; }

#include "map_helper.h"

int APPLY_SPECIFIC(run)(PyArrayObject* x, PyArrayObject** out)
{
    // Deliberately fails without setting a Python exception on an empty input:
    // opkit must then raise a RuntimeError naming this function.
    if (PyArray_DIMS(x)[0] == 0) return 2;
    return APPLY_SPECIFIC(map)(x, out);
}

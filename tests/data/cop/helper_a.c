#section support_code
static double double_it(double v) { return 2.0 * v; }

#section support_code_apply
static DTYPE_OUTPUT_0 APPLY_SPECIFIC(helper)(DTYPE_INPUT_0 v) { return double_it(v) + 1.0; }

#include "map_helper.h"

int APPLY_SPECIFIC(run)(PyArrayObject* x, PyArrayObject** out)
{
    return APPLY_SPECIFIC(map)(x, out);
}

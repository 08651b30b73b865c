/* Depend's C (opkit/core/tensor/types/shape_checks.py): its first input, once the checks (the other inputs) ran. */

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = INPUT_0;
Py_INCREF(OUTPUT_0);

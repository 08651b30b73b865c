// Module initialisation through the bridge: init_code runs once per module,
// init_code_apply once per node; the code reports both counts.
#section support_code
static long bridge_init_runs = 0;

#section init_code
bridge_init_runs += 1;

#section init_code_apply
bridge_init_runs += 100;

#section code
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_ZEROS(0, NULL, TYPENUM_OUTPUT_0, 0);
if (!OUTPUT_0) FAIL;
*(DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0) = bridge_init_runs + 1000 * (DTYPE_OUTPUT_0)PyArray_DIM(INPUT_0, 0);

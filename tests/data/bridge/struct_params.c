#section support_code_struct
double APPLY_SPECIFIC(offset);
double APPLY_SPECIFIC(twice)() { return 2 * PARAMS->alpha; }

#section init_code_struct
APPLY_SPECIFIC(offset) = PARAMS->mode == MUL ? 100 : 10;

#section code
OUTPUT_0 = INPUT_0 * PARAMS->alpha + APPLY_SPECIFIC(offset) + APPLY_SPECIFIC(twice)();

#section code_cleanup
if (PARAMS->alpha != PARAMS->alpha) { /* PARAMS is defined here too */ }

#section cleanup_code_struct
APPLY_SPECIFIC(offset) = 0;  /* PyTensor frees the params before this runs: no PARAMS here */

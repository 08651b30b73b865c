// Per-function state: a heap-allocated call counter, created by init_code_struct
// and freed by cleanup_code_struct, which also appends a line to the file named
// by $OPKIT_TEST_COP_LOG (read when the function is made) so a test can see it ran.
#section support_code
#include <stdio.h>
#include <stdlib.h>

#section support_code_struct
long* APPLY_SPECIFIC(calls);
char APPLY_SPECIFIC(log_path)[1024];

#section init_code_struct
APPLY_SPECIFIC(calls) = (long*)malloc(sizeof(long));
if (APPLY_SPECIFIC(calls) == NULL) {
    PyErr_NoMemory();
    FAIL
}
*APPLY_SPECIFIC(calls) = 0;
{
    const char* log_path = getenv("OPKIT_TEST_COP_LOG");
    snprintf(APPLY_SPECIFIC(log_path), sizeof(APPLY_SPECIFIC(log_path)), "%s",
             log_path ? log_path : "");
}

#section code
*APPLY_SPECIFIC(calls) += 1;
Py_XDECREF(OUTPUT_0);
OUTPUT_0 = (PyArrayObject*)PyArray_ZEROS(0, NULL, TYPENUM_OUTPUT_0, 0);
if (OUTPUT_0 == NULL) FAIL
*(DTYPE_OUTPUT_0*)PyArray_DATA(OUTPUT_0) = (DTYPE_OUTPUT_0)*APPLY_SPECIFIC(calls);

#section cleanup_code_struct
if (APPLY_SPECIFIC(log_path)[0] != '\0') {
    FILE* log = fopen(APPLY_SPECIFIC(log_path), "a");
    if (log != NULL) {
        fprintf(log, "freed after %ld calls\n", *APPLY_SPECIFIC(calls));
        fclose(log);
    }
}
free(APPLY_SPECIFIC(calls));
APPLY_SPECIFIC(calls) = NULL;

// A file with one of each problem `opkit check` reports.
int stray_global = 0;

#section suport_code
int misspelled(void) { return 0; }

#section support_code
// FAIL and APPLY_SPECIFIC in a comment are fine; "FAIL" in a string too.
int APPLY_SPECIFIC(helper)(DTYPE_INPUT_0 x) { return (int)x; }

#section support_code_apply
int APPLY_SPECIFIC(check)(PyArrayObject* x)
{
    if (x == NULL) { FAIL; }
    return PyArray_NDIM(INPUT_0);
}

#section code
if (APPLY_SPECIFIC(check)(INPUT_0) != 0) {
    return -1;
}

#section
#section code_cleanup

/* CumOp's C (opkit/core/tensor/sorting/cumulative.py): cumsum or cumprod along the axis, numpy's dtype. */

#section code
{
    PyArrayObject* x = opkit_contiguous(INPUT_0);
    PyArrayObject* running = x ? opkit_empty_like(x, TYPENUM_OUTPUT_0) : NULL;
    if (running) {
        if (PARAMS->multiply) opkit_cumulate<DTYPE_INPUT_0, DTYPE_OUTPUT_0, 1>(x, running, (int)PARAMS->axis);
        else opkit_cumulate<DTYPE_INPUT_0, DTYPE_OUTPUT_0, 0>(x, running, (int)PARAMS->axis);
    }
    Py_XDECREF(x);
    if (!running) FAIL
    Py_XDECREF(OUTPUT_0);
    OUTPUT_0 = running;
}

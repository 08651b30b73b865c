/* Dot's C (opkit/core/tensor/elementwise/basic.py): numpy.dot of vectors and matrices through numpy's own C
   (PyArray_MatrixProduct2: BLAS for float and complex, numpy's loops for the rest), so the numbers, the errors
   and the result dtype are np.dot's, without perform's Python call. The output is written into the node's
   last output when the function kept it for reuse (opkit_prepare_output, elemwise.c). */

#section code
{
    PyArrayObject* a = INPUT_0;
    PyArrayObject* b = INPUT_1;
    const int na = PyArray_NDIM(a), nb = PyArray_NDIM(b);
    npy_intp dims[2];
    int nd = 0;
    if (na == 2) dims[nd++] = PyArray_DIMS(a)[0];
    if (nb == 2) dims[nd++] = PyArray_DIMS(b)[1];
    /* numpy.dot takes out= of exactly its result's dtype: given where both inputs have the output's dtype and
       the shapes align (else numpy's own error, from the call without it) */
    PyArrayObject* out = NULL;
    if (PyArray_DIMS(a)[na - 1] == PyArray_DIMS(b)[0] && PyArray_TYPE(a) == TYPENUM_OUTPUT_0
            && PyArray_TYPE(b) == TYPENUM_OUTPUT_0) {
        if (opkit_prepare_output(&OUTPUT_0, nd, dims, TYPENUM_OUTPUT_0)) FAIL
        out = OUTPUT_0;
    }
    PyObject* product = PyArray_MatrixProduct2((PyObject*)a, (PyObject*)b, out);
    if (!product) FAIL
    if (out) {
        Py_DECREF(product);  /* out itself, or (0-d) a scalar of it: the value is in OUTPUT_0 */
    } else {
        /* a vector . vector product comes back as a numpy scalar: a 0-d array of the output's dtype */
        PyArrayObject* z = (PyArrayObject*)PyArray_FromAny(product, PyArray_DescrFromType(TYPENUM_OUTPUT_0), 0, 0,
                                                           NPY_ARRAY_DEFAULT | NPY_ARRAY_ENSUREARRAY | NPY_ARRAY_FORCECAST,
                                                           NULL);
        Py_DECREF(product);
        if (!z) FAIL
        Py_XDECREF(OUTPUT_0);
        OUTPUT_0 = z;
    }
}

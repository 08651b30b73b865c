/* Dot's C (opkit/core/tensor/elementwise/basic.py): numpy.dot of vectors and matrices through numpy's own C
   (PyArray_MatrixProduct2: BLAS for float and complex, numpy's loops for the rest), so the numbers, the errors
   and the result dtype are np.dot's, without perform's Python call. The output is written into the node's
   last output when the function kept it for reuse (opkit_prepare_output, elemwise.c); a big float matrix
   product into it goes through numpy.matmul (opkit_dot_by_matmul). */

#section support_code
#ifndef OPKIT_DOT_SUPPORT
#define OPKIT_DOT_SUPPORT
/* numpy.matmul, looked up once (the GIL is held): a float matrix product into a kept output goes through it,
   as np.dot zero-fills its output before the same gemm (2.6% of a (256, 256) product); the two give the same
   bits for float32 and float64 matrices in C or Fortran order (tests/tensor/test_dot_c.py checks both). */
static PyObject* opkit_dot_matmul(void)
{
    static PyObject* matmul = NULL;
    if (!matmul) {
        PyObject* numpy = PyImport_ImportModule("numpy");
        if (!numpy) return NULL;
        matmul = PyObject_GetAttrString(numpy, "matmul");
        Py_DECREF(numpy);
    }
    return matmul;
}

/* True if the matrix product a . b into out may go through numpy.matmul: float32 or float64 matrices, each
   in C or Fortran order (gemm's layouts, where matmul and dot call the same BLAS routine), and an output
   big enough for the zero-fill to matter. */
static int opkit_dot_by_matmul(PyArrayObject* a, PyArrayObject* b, PyArrayObject* out)
{
    const int t = PyArray_TYPE(out);
    return (t == NPY_FLOAT64 || t == NPY_FLOAT32) && PyArray_NDIM(a) == 2 && PyArray_NDIM(b) == 2
           && PyArray_SIZE(out) >= 4096
           && (PyArray_IS_C_CONTIGUOUS(a) || PyArray_IS_F_CONTIGUOUS(a))
           && (PyArray_IS_C_CONTIGUOUS(b) || PyArray_IS_F_CONTIGUOUS(b));
}
#endif

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
    PyObject* product;
    if (out && opkit_dot_by_matmul(a, b, out)) {
        PyObject* matmul = opkit_dot_matmul();
        product = matmul ? PyObject_CallFunctionObjArgs(matmul, (PyObject*)a, (PyObject*)b, (PyObject*)out, NULL) : NULL;
    } else {
        product = PyArray_MatrixProduct2((PyObject*)a, (PyObject*)b, out);
    }
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

/* Reading and resolving a reshape's target shape, with numpy's error text (reshape.c, resolved_shape.c). */
#ifndef OPKIT_RESHAPE_SUPPORT
#define OPKIT_RESHAPE_SUPPORT
/* Append a shape as a tuple with `sep` between lengths: (2, 3), (4,), () as Python prints it with ", ";
   numpy's broadcast errors write (2,3) with ",". */
static size_t opkit_format_shape_sep(char* msg, size_t len, size_t cap, int nd, const npy_intp* dims,
                                     const char* sep)
{
    if (len < cap) len += snprintf(msg + len, cap - len, "(");
    for (int d = 0; d < nd; ++d)
        if (len < cap) len += snprintf(msg + len, cap - len, "%s%lld", d ? sep : "", (long long)dims[d]);
    if (len < cap) len += snprintf(msg + len, cap - len, "%s)", nd == 1 ? "," : "");
    return len;
}

/* Append a shape as Python prints a tuple: (2, 3), (4,), (). */
/* 1 if an array of `from` broadcasts into the shape of `to` by numpy's rule (each length 1 or the target's,
   counted from the last axis; never more axes than the target), else 0. */
static int opkit_broadcasts(PyArrayObject* from, PyArrayObject* to)
{
    int nd = PyArray_NDIM(to), k = PyArray_NDIM(from);
    if (k > nd) return 0;
    for (int i = 0; i < k; ++i) {
        npy_intp v = PyArray_DIMS(from)[i];
        if (v != 1 && v != PyArray_DIMS(to)[nd - k + i]) return 0;
    }
    return 1;
}

static size_t opkit_format_shape(char* msg, size_t len, size_t cap, int nd, const npy_intp* dims)
{
    return opkit_format_shape_sep(msg, len, cap, nd, dims, ", ");
}

/* Read the int64 vector `shape` into dims[0..nd) with its -1 resolved for a source of shape
   source_dims[0..source_nd), as resolve_shape in reshape.py does (same ValueError text). */
static int opkit_resolve_shape(int source_nd, const npy_intp* source_dims, PyArrayObject* shape, int nd,
                               npy_intp* dims)
{
    npy_intp size = 1, known = 1;
    for (int d = 0; d < source_nd; ++d) size *= source_dims[d];
    int unknown = -1, bad = 0;
    for (int d = 0; d < nd; ++d) {
        dims[d] = (npy_intp)*(npy_int64*)PyArray_GETPTR1(shape, d);
        if (dims[d] == -1) { bad |= unknown >= 0; unknown = d; }
        else if (dims[d] < -1) bad = 1;
        else known *= dims[d];
    }
    bad |= unknown >= 0 ? (known == 0 || size % known != 0) : known != size;
    if (bad) {
        char msg[1024];
        size_t len = snprintf(msg, sizeof msg, "reshape: cannot reshape an array of shape ");
        len = opkit_format_shape(msg, len, sizeof msg, source_nd, source_dims);
        if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, " (%lld elements) into shape ",
                                              (long long)size);
        len = opkit_format_shape(msg, len, sizeof msg, nd, dims);
        if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, ": the new shape must hold the same number "
                                       "of elements, with at most one -1 for a length to deduce");
        PyErr_SetString(PyExc_ValueError, msg);
        return -1;
    }
    if (unknown >= 0) dims[unknown] = size / known;
    return 0;
}

/* The dims of `x` reshaped to the int64 vector `shape` of nd entries (opkit_resolve_shape's errors). */
static int opkit_reshape_dims(PyArrayObject* x, PyArrayObject* shape, int nd, npy_intp* dims)
{
    if (PyArray_DIMS(shape)[0] != nd) {
        PyErr_Format(PyExc_ValueError, "reshape: the shape vector has %lld entries, the op was built for %d",
                     (long long)PyArray_DIMS(shape)[0], nd);
        return -1;
    }
    return opkit_resolve_shape(PyArray_NDIM(x), PyArray_DIMS(x), shape, nd, dims);
}
#endif

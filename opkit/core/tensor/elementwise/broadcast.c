/* numpy's broadcast error, written once: raised by every elementwise node (elemwise.c's opkit_broadcast)
   and by BroadcastAxis (opkit/core/tensor/elementwise/elemwise.py), worded as elemwise.broadcast_shape words it. */

#section support_code
#ifndef OPKIT_BROADCAST_SUPPORT
#define OPKIT_BROADCAST_SUPPORT
/* Set ValueError for `nin` shapes given as one flat list of lengths (ndims[k] each) that cannot be
   broadcast together into nd dimensions: name every shape and the lengths that clash on `axis`. */
static void opkit_broadcast_message(int nd, int nin, const int* ndims, const npy_int64* dims, int axis,
                                    const char* what)
{
    char msg[2048];
    size_t len = 0;
#define OPKIT_APPEND(...) do { if (len < sizeof msg) len += snprintf(msg + len, sizeof msg - len, __VA_ARGS__); } while (0)
    OPKIT_APPEND("%s with shapes ", what);
    npy_int64 lengths[64];
    int n_lengths = 0;
    for (int k = 0, start = 0; k < nin; start += ndims[k], ++k) {
        OPKIT_APPEND("%s(", k ? ", " : "");
        for (int d = 0; d < ndims[k]; ++d) OPKIT_APPEND("%s%lld", d ? ", " : "", (long long)dims[start + d]);
        OPKIT_APPEND("%s)", ndims[k] == 1 ? "," : "");
        int ad = axis - (nd - ndims[k]);
        if (ad < 0) continue;
        npy_int64 n = dims[start + ad];
        int seen = (n == 1);
        for (int j = 0; j < n_lengths; ++j) seen |= lengths[j] == n;
        if (!seen && n_lengths < 64) lengths[n_lengths++] = n;
    }
    for (int i = 1; i < n_lengths; ++i)
        for (int j = i; j > 0 && lengths[j - 1] > lengths[j]; --j) {
            npy_int64 t = lengths[j]; lengths[j] = lengths[j - 1]; lengths[j - 1] = t;
        }
    OPKIT_APPEND(" cannot be broadcast together: axis %d has lengths [", axis);
    for (int j = 0; j < n_lengths; ++j) OPKIT_APPEND("%s%lld", j ? ", " : "", (long long)lengths[j]);
    OPKIT_APPEND("]");
#undef OPKIT_APPEND
    PyErr_SetString(PyExc_ValueError, msg);
}

/* numpy's broadcast of `nin` shapes given as one flat list of lengths (ndims[k] each):
   store the length of `axis` in *length, or set opkit_broadcast_message's ValueError. */
static int opkit_broadcast_axis(int nin, const int* ndims, const npy_int64* dims, int axis, const char* what,
                                npy_int64* length)
{
    int nd = 0;
    for (int k = 0; k < nin; ++k) if (ndims[k] > nd) nd = ndims[k];
    for (int a = 0; a < nd; ++a) {
        npy_int64 first = 1;
        for (int k = 0, start = 0; k < nin; start += ndims[k], ++k) {
            int ad = a - (nd - ndims[k]);
            if (ad < 0 || dims[start + ad] == 1) continue;
            if (first != 1 && first != dims[start + ad]) {
                opkit_broadcast_message(nd, nin, ndims, dims, a, what);
                return -1;
            }
            first = dims[start + ad];
        }
        if (a == axis) *length = first;
    }
    return 0;
}
#endif

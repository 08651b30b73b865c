/* The host side of the built-in GPU ops' kernels (opkit/gpu/ops/): broadcast OpkitGpuArray shapes (with
   broadcast.c's ValueError, as the CPU nodes raise it), and describe the walk of several arrays over an output's
   elements for a kernel (opkit_gpu_indexer, opkit/templates/gpu_ops/elemwise.cu.j2). */

#section support_code
#ifndef OPKIT_GPU_WALK_SUPPORT
#define OPKIT_GPU_WALK_SUPPORT
#define OPKIT_GPU_EW_BLOCK 256
#define OPKIT_GPU_MAX_BLOCKS 65535

/* The number of blocks of `block` threads a grid-stride loop over n elements launches. */
static int opkit_gpu_blocks(long long n, int block)
{
    long long blocks = (n + block - 1) / block;
    return (int)(blocks < 1 ? 1 : (blocks > OPKIT_GPU_MAX_BLOCKS ? OPKIT_GPU_MAX_BLOCKS : blocks));
}

/* Broadcast the shapes of `nin` arrays (aligned right) into dims[0..nd), as elemwise.c's opkit_broadcast. */
static int opkit_gpu_broadcast(int nd, int nin, OpkitGpuArray** ins, npy_intp* dims, const char* what)
{
    for (int d = 0; d < nd; ++d) dims[d] = 1;
    for (int k = 0; k < nin; ++k) {
        int offset = nd - ins[k]->ndim;
        for (int d = 0; d < ins[k]->ndim; ++d) {
            npy_intp n = ins[k]->dims[d];
            if (n == 1) continue;
            if (dims[offset + d] != 1 && dims[offset + d] != n) {
                int ndims[64];
                npy_int64 flat[64 * 8];
                int total = 0;
                for (int j = 0; j < nin && j < 64; ++j) {
                    ndims[j] = ins[j]->ndim;
                    for (int e = 0; e < ins[j]->ndim && total < 64 * 8; ++e) flat[total++] = ins[j]->dims[e];
                }
                opkit_broadcast_message(nd, nin < 64 ? nin : 64, ndims, flat, offset + d, what);
                return -1;
            }
            dims[offset + d] = n;
        }
    }
    return 0;
}

/* The byte stride of array `a` on axis d of the nd-d broadcast shape: 0 on a broadcast or missing axis. */
static long long opkit_gpu_stride(const OpkitGpuArray* a, int nd, int d)
{
    int ad = d - (nd - a->ndim);
    return (ad < 0 || a->dims[ad] == 1) ? 0 : (long long)a->strides[ad];
}

/* Describe the walk of ins[0..nin) and `out` over the nd-d output shape `dims` in C order: *n elements, *nd_out
   axes of lengths dims_out with each array's byte strides (strides[k * OPKIT_GPU_EW_MAXDIMS + axis]; array nin
   is the output), length-1 axes dropped and neighbours merged where every array steps evenly across them;
   one[k]: input k has one element broadcast to a longer output. 0 on success, else -1 with ValueError set. */
static int opkit_gpu_walk(int nin, OpkitGpuArray** ins, const OpkitGpuArray* out, int nd, const npy_intp* dims,
                          long long* n, int* nd_out, long long* dims_out, long long* strides, int* one)
{
    long long total = 1;
    for (int d = 0; d < nd; ++d) total *= dims[d];
    *n = total;
    for (int k = 0; k <= nin; ++k) {
        long long size = 1;
        if (k < nin) for (int d = 0; d < ins[k]->ndim; ++d) size *= ins[k]->dims[d];
        one[k] = k < nin && size == 1 && total > 1;
    }
    int m = 0;
    for (int d = 0; d < nd && total > 0; ++d) {
        if (dims[d] == 1) continue;
        int merge = m > 0;
        for (int k = 0; k <= nin && merge; ++k) {
            long long s = opkit_gpu_stride(k < nin ? ins[k] : out, nd, d);
            merge = strides[k * OPKIT_GPU_EW_MAXDIMS + m - 1] == s * (long long)dims[d];
        }
        if (!merge && m == OPKIT_GPU_EW_MAXDIMS) {
            PyErr_Format(PyExc_ValueError, "a GPU elementwise kernel walks at most %d axes that cannot be merged; "
                         "this expression's %d-d output has more", OPKIT_GPU_EW_MAXDIMS, nd);
            return -1;
        }
        if (!merge) dims_out[m++] = 1;
        dims_out[m - 1] *= dims[d];
        for (int k = 0; k <= nin; ++k)
            strides[k * OPKIT_GPU_EW_MAXDIMS + m - 1] = opkit_gpu_stride(k < nin ? ins[k] : out, nd, d);
    }
    *nd_out = m;
    return 0;
}
#endif

#ifndef OPKIT_GPU_REDUCE_SUPPORT
#define OPKIT_GPU_REDUCE_SUPPORT
/* The threads of a reduction's block: the power of 2 covering n reduced elements, at most `most`. */
static int opkit_gpu_reduce_block(long long n, int most)
{
    int block = 1;
    while (block < most && block < n) block *= 2;
    return block;
}

/* How many runs each output's n_red reduced elements are cut into, so that a reduction of few outputs still
   has about OPKIT_GPU_REDUCE_BLOCKS blocks at work (one block per run), each run at least 4 blocks' worth. */
#define OPKIT_GPU_REDUCE_BLOCKS 1024
static long long opkit_gpu_reduce_chunks(long long n_out, long long n_red, int block)
{
    if (n_out >= OPKIT_GPU_REDUCE_BLOCKS || n_red <= 4LL * block) return 1;
    long long wanted = (OPKIT_GPU_REDUCE_BLOCKS + n_out - 1) / n_out;
    long long most = (n_red + 4LL * block - 1) / (4LL * block);
    long long chunks = wanted < most ? wanted : most;
    long long run = (n_red + chunks - 1) / chunks;
    return (n_red + run - 1) / run;  /* no run left empty */
}

/* The two walks of a reduction over the axes flagged in `reduced` of the nd-d broadcast (lengths dims) of
   ins[0..nin), into `out` (nd axes with keepdims, else the kept axes only): over the outputs (the inputs and out,
   the reduced axes of length 1), and over the reduced elements of one output (the inputs alone, the kept axes of
   length 1). one_out[k]: input k has one element broadcast to a longer elementwise value. See opkit_gpu_walk. */
static int opkit_gpu_reduce_walks(int nin, OpkitGpuArray** ins, const OpkitGpuArray* out, int nd,
                                  const npy_intp* dims, const int* reduced, long long* n_out, int* nd_out,
                                  long long* dims_out, long long* strides_out, int* one_out, long long* n_red,
                                  int* nd_red, long long* dims_red, long long* strides_red, int* one_red)
{
    OpkitGpuArray* views = (OpkitGpuArray*)malloc(sizeof(OpkitGpuArray) * (2 * nin + 1));
    OpkitGpuArray** kept = (OpkitGpuArray**)malloc(sizeof(OpkitGpuArray*) * 2 * nin);
    if (!views || !kept) {
        free(views);
        free(kept);
        PyErr_NoMemory();
        return -1;
    }
    OpkitGpuArray** red = kept + nin;
    OpkitGpuArray* out_view = views + 2 * nin;
    npy_intp kept_dims[OPKIT_GPU_MAXDIMS], red_dims[OPKIT_GPU_MAXDIMS];
    long long total = 1;
    for (int d = 0; d < nd; ++d) {
        kept_dims[d] = reduced[d] ? 1 : dims[d];
        red_dims[d] = reduced[d] ? dims[d] : 1;
        total *= dims[d];
    }
    for (int k = 0; k < nin; ++k) {
        kept[k] = views + k;
        red[k] = views + nin + k;
        *kept[k] = *ins[k];
        kept[k]->ndim = nd;
        for (int d = 0; d < nd; ++d) {
            const int ad = d - (nd - ins[k]->ndim);
            const npy_intp n = ad < 0 ? 1 : ins[k]->dims[ad];
            kept[k]->dims[d] = reduced[d] ? 1 : n;
            kept[k]->strides[d] = ad < 0 ? 0 : ins[k]->strides[ad];
        }
        *red[k] = *kept[k];
        for (int d = 0; d < nd; ++d) {
            const int ad = d - (nd - ins[k]->ndim);
            red[k]->dims[d] = reduced[d] ? (ad < 0 ? 1 : ins[k]->dims[ad]) : 1;
        }
    }
    *out_view = *out;
    out_view->ndim = nd;
    for (int d = 0, o = 0; d < nd && out->ndim != nd; ++d) {
        out_view->dims[d] = reduced[d] ? 1 : out->dims[o];
        out_view->strides[d] = reduced[d] ? 0 : out->strides[o];
        o += !reduced[d];
    }
    int status = opkit_gpu_walk(nin, kept, out_view, nd, kept_dims, n_out, nd_out, dims_out, strides_out, one_out);
    if (!status)
        status = opkit_gpu_walk(nin - 1, red, red[nin - 1], nd, red_dims, n_red, nd_red, dims_red, strides_red,
                                one_red);
    for (int k = 0; k < nin && !status; ++k) {
        long long size = 1;
        for (int d = 0; d < ins[k]->ndim; ++d) size *= ins[k]->dims[d];
        one_out[k] = size == 1 && total > 1;
    }
    free(views);
    free(kept);
    return status;
}
#endif

"""C code of the reductions: one pass over the (elementwise-computed) values, blocked and pairwise.

The reduced elements of each output element are numbered 0..m-1 (row-major over
the reduced axes). They are cut into chunks of OPKIT_REDUCE_CHUNK elements, each
reduced pairwise down to leaves (128 elements for sum, prod and mean, summed with 8
accumulators as numpy's pairwise summation; 2048 for max and min, which do not round),
and the chunk results are combined pairwise in a fixed tree. The blocks depend only
on m, never on the thread count, so a result is bit-identical whatever
OPKIT_THREADS_FOR gives (threads take whole chunks, whole outputs, or whole subtrees
of a fixed cut of the tree, and write each result to its own slot).

Where the inputs are dense (opkit_reduce_dense: C order with the reduced axes
adjacent, or Fortran order reduced over one axis), the loops read memory in order:
a last axis reduced walks each output's elements (leaf_flat); a non-last axis walks
rows of adjacent outputs and folds each row into lane rows (leaf_rows), with the same
lanes, tree and bits per output as leaf_flat. Other layouts use a strided cursor
(leaf_nd), again with the same bits.

Integer sums and products are computed in npy_uint64 (they wrap like numpy's);
max/min propagate NaN like numpy's, in one pass: their combine keeps a NaN on either
side, without a branch, so the lanes vectorize.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opkit.core.tensor.c_interface import c_dtype, c_typenum
from opkit.core.tensor.elemwise_c import program_statements
from opkit.core.tensor.scalar_ops import has_c_dtype, program_operand_dtypes

LANES = 8  # accumulators of a leaf, as numpy's pairwise sum (max and min: 2 AVX vectors, in registers)

# kind -> C expression combining accumulators a and b, by accumulator kind: f(loat), i(nteger), b(ool).
# Float max/min: a when a wins or is NaN, else b (NaN when b is): compare-and-blend, a vector operation.
_COMBINE = {
    "sum": {"f": "a + b", "i": "a + b"},
    "mean": {"f": "a + b"},
    "prod": {"f": "a * b", "i": "a * b"},
    "max": {"f": "(a >= b || a != a) ? a : b", "i": "a >= b ? a : b", "b": "a || b"},
    "min": {"f": "(a <= b || a != a) ? a : b", "i": "a <= b ? a : b", "b": "a && b"},
}


def accumulator_dtype(kind, value_dtype, out_dtype):
    """Return the dtype the C loop accumulates in: uint64 for integer sums and products (they wrap)."""
    if kind in ("sum", "prod") and np.dtype(out_dtype).kind in "iu":
        return "uint64"
    if kind == "mean":
        return out_dtype
    return value_dtype if kind in ("max", "min") else out_dtype


def _identity(kind, acc):
    dtype = np.dtype(acc)
    if kind in ("sum", "mean"):
        return "0"
    if kind == "prod":
        return "1"
    if dtype.kind == "b":
        return "0" if kind == "max" else "1"
    if dtype.kind == "f":
        huge = "HUGE_VALF" if dtype.itemsize == 4 else "HUGE_VAL"
        return f"-{huge}" if kind == "max" else huge
    if dtype.kind == "u":
        return "0" if kind == "max" else f"NPY_MAX_UINT{dtype.itemsize * 8}"
    bound = "MIN" if kind == "max" else "MAX"
    return f"NPY_{bound}_INT{dtype.itemsize * 8}"


def _acc_kind(acc):
    kind = np.dtype(acc).kind
    return "i" if kind in "iu" else kind


def _value_dtype(op, node):
    program, _ = op.reduce_program(node)
    return program[-1][2] if program else node.inputs[0].dtype


def reduce_has_c(op, node):
    """Return True if the C loop computes numpy's result for this node (see scalar_ops.C_DTYPES)."""
    program, _ = op.reduce_program(node)
    value, out = _value_dtype(op, node), node.outputs[0].dtype
    acc = accumulator_dtype(op.kind, value, out)
    if not (all(has_c_dtype(v.dtype) for v in node.inputs) and has_c_dtype(value) and has_c_dtype(out)
            and _acc_kind(acc) in _COMBINE[op.kind]):
        return False
    operand_dtypes = program_operand_dtypes(program, [v.dtype for v in node.inputs])
    return all(s.has_c(d, loop) for (s, _, d), loop in zip(program, operand_dtypes))


@dataclass(frozen=True)
class _Plan:
    """What the C code of one reduce node is made of (names of C types, axes, expressions)."""

    op: object
    node: object
    nd: int
    axes: tuple
    acc: str
    scalar: tuple  # inputs that are scalars by type: read once, before the loop

    @property
    def n_inputs(self):
        return len(self.node.inputs)

    @property
    def in_types(self):
        return [c_dtype(v.dtype) for v in self.node.inputs]

    @property
    def acc_t(self):
        return c_dtype(self.acc)

    @property
    def out_t(self):
        return c_dtype(self.node.outputs[0].dtype)


def _plan(op, node):
    nd = max(v.ndim for v in node.inputs)
    acc = accumulator_dtype(op.kind, _value_dtype(op, node), node.outputs[0].dtype)
    scalar = tuple(all(s == 1 for s in v.type.shape) for v in node.inputs)
    return _Plan(op, node, nd, op._axes(nd), acc, scalar)


def _value_lines(plan, load):
    """C statements computing `e`, the value to reduce in the accumulator type; `load(k)` reads input k."""
    program, n_inputs = plan.op.reduce_program(plan.node)
    lines = [f"const {t} v{k} = {load(k)};" for k, t in enumerate(plan.in_types) if load(k) is not None]
    lines += program_statements(program, [v.dtype for v in plan.node.inputs], plan.scalar)
    result = f"t{len(program) - 1}" if program else "v0"
    if np.dtype(_value_dtype(plan.op, plan.node)).kind == "b" and plan.acc != "bool":
        result = f"({result} != 0)"
    return lines + [f"const {plan.acc_t} e = ({plan.acc_t}){result};"]


def _leaf_size(plan):
    """Elements per leaf of the tree: numpy's 128 for sums; 2048 for max and min (no rounding:
    long leaves keep the lanes in registers, the tree still cuts a long axis for threads)."""
    return "OPKIT_REDUCE_LEAF" if plan.op.kind not in ("max", "min") else "OPKIT_REDUCE_MAXMIN_LEAF"


def _fold(plan, lane, simd_over=""):
    """C statements folding lanes lane(0..L-1) into lane(0).

    sum, prod and mean pair them as numpy does, ((0+1)+(2+3))+((4+5)+(6+7)); max and
    min halve them (k with k + L/2, ...), a vector operation at each step. `simd_over`:
    the loop header over w (the rows of leaf_rows), or "" (one lane each, leaf_flat).
    """
    count = LANES
    if plan.op.kind not in ("max", "min"):
        pair_expr = _pairs(lane, 0, count)
        if simd_over:
            return f"#pragma omp simd\n        {simd_over} {lane(0)} = {pair_expr};"
        return f"{lane(0)} = {pair_expr};"
    inner = f"{lane('k')} = combine({lane('k')}, {lane('k + h')});"
    if simd_over:
        return (f"for (int h = {count // 2}; h >= 1; h /= 2)\n            for (int k = 0; k < h; ++k)\n"
                f"#pragma omp simd\n                {simd_over} {inner}")
    return f"for (int h = {count // 2}; h >= 1; h /= 2)\n#pragma omp simd\n            for (int k = 0; k < h; ++k) {inner}"


def _pairs(lane, a, b):
    """numpy's pairing of lanes a..b-1: combine(pairs(a, mid), pairs(mid, b))."""
    if b - a == 1:
        return lane(a)
    mid = (a + b) // 2
    return f"combine({_pairs(lane, a, mid)}, {_pairs(lane, mid, b)})"


def _leaf(plan, name, load, locate, advance):
    """Return a C++ lambda `name(o, start, n)`: the lanes' reduction of a leaf (numpy's 8 for sums).

    `load(k)` reads input k at element `at` of the leaf; `locate` and `advance`
    move the strided path's cursor (empty for the contiguous path, whose lanes
    are then one `omp simd` loop: vectors).
    """
    lanes = LANES
    unroll = f"#pragma GCC unroll {lanes}" if advance else "#pragma omp simd"
    acc_t, identity = plan.acc_t, _identity(plan.op.kind, plan.acc)
    body = "\n".join("                " + line for line in _value_lines(plan, load))
    return f"""
    auto {name} = [&](npy_intp o, npy_intp start, npy_intp n) -> {acc_t} {{
        {locate}
        {acc_t} r[{lanes}] = {{{', '.join([identity] * lanes)}}};
        const npy_intp n_lanes = n - n % {lanes};
        npy_intp i = 0;
        for (; i < n_lanes; i += {lanes}) {{
{unroll}
            for (int k = 0; k < {lanes}; ++k) {{  /* the lanes stay in registers, as vectors */
                const npy_intp at = i + k; (void)at;
{body}
                r[k] = combine(r[k], e);
                {advance}
            }}
        }}
        {_fold(plan, lambda k: f"r[{k}]")}
        {acc_t} res = r[0];
        for (; i < n; ++i) {{
            const npy_intp at = i; (void)at;
{body}
            res = combine(res, e);
            {advance}
        }}
        return res;
    }};"""


def _rows_leaf(plan):
    """Return a C++ lambda leaf_rows(base, W, start, n, res, lanes) for a non-last reduced axis.

    It computes the leaves of W adjacent outputs at once, into res[0..W): reduced
    element r of output c is at element base + r * n_in + c, so each step reads a
    row of W adjacent elements, in memory order, and folds it into one of the lane
    rows (lanes: LANES * W accumulators). Each output gets exactly the lanes,
    order, fold and tail of its own leaf_flat: the same bits.
    """
    acc_t, identity, lanes = plan.acc_t, _identity(plan.op.kind, plan.acc), LANES
    load = lambda k: None if plan.scalar[k] else f"p{k}[row + w]"  # noqa: E731
    body = "\n".join("                    " + line for line in _value_lines(plan, load))
    tail_body = "\n".join("                " + line for line in _value_lines(plan, load))
    fold = _fold(plan, lambda k: f"lanes[({k}) * W + w]", "for (npy_intp w = 0; w < W; ++w)")
    return f"""
    auto leaf_rows = [&](npy_intp base, npy_intp W, npy_intp start, npy_intp n, {acc_t}* res, {acc_t}* lanes) {{
        for (npy_intp x = 0; x < {lanes} * W; ++x) lanes[x] = {identity};
        const npy_intp n_lanes = n - n % {lanes};
        npy_intp i = 0;
        for (; i < n_lanes; i += {lanes}) {{
            for (int k = 0; k < {lanes}; ++k) {{
                const npy_intp row = base + (start + i + k) * n_in;
                {acc_t}* r = lanes + k * W;
#pragma omp simd
                for (npy_intp w = 0; w < W; ++w) {{
{body}
                    r[w] = combine(r[w], e);
                }}
            }}
        }}
        {fold}
#pragma omp simd
        for (npy_intp w = 0; w < W; ++w) res[w] = lanes[w];
        for (; i < n; ++i) {{
            const npy_intp row = base + (start + i) * n_in;
#pragma omp simd
            for (npy_intp w = 0; w < W; ++w) {{
{tail_body}
                res[w] = combine(res[w], e);
            }}
        }}
    }};"""


def _leaves(plan, inputs):
    """Return C code defining leaf_flat (contiguous inputs, reduced axes trailing) and leaf_nd (any strides)."""
    hoisted = "\n".join(f"    const {t} v{k} = p{k}[0];" for k, t in enumerate(plan.in_types) if plan.scalar[k])
    pointers = "\n".join(f"    const {t}* p{k} = (const {t}*)PyArray_DATA({inputs[k]}); (void)p{k};"
                         for k, t in enumerate(plan.in_types))
    flat = _leaf(plan, "leaf_flat", lambda k: None if plan.scalar[k] else f"p{k}[j0 + at]",
                 "const npy_intp j0 = o * m + start;", "")
    strided = _leaf(plan, "leaf_nd", lambda k: f"*(const {plan.in_types[k]}*)cursor.ptr[{k}]",
                    f"opkit_reduce_cursor<{plan.n_inputs}> cursor; opkit_reduce_locate(cursor, axes, o, start);",
                    "opkit_reduce_advance(cursor, axes);")
    return f"{pointers}\n{hoisted}\n{flat}\n{strided}\n{_rows_leaf(plan)}"


def _packs(plan):
    """True if a Fortran-order matrix reduced over every axis is packed chunk by chunk (one array input)."""
    return plan.n_inputs == 1 and not plan.scalar[0]


def _finish(plan):
    if plan.op.kind == "mean":  # numpy divides by the count as float64 (np.intp), then rounds to the result
        return f"({plan.out_t})((npy_float64)acc / (npy_float64)m)"
    return f"({plan.out_t})acc"


def _empty_check(plan, sub):
    if plan.op.kind not in ("max", "min"):
        return ""
    ufunc = "maximum" if plan.op.kind == "max" else "minimum"
    return f"""if (m == 0) {{
        PyErr_SetString(PyExc_ValueError, "zero-size array to reduction operation {ufunc} which has no identity");
        {sub['fail']}
    }}"""


def _transposed_branch(plan, sub):
    """C code of the loop over a Fortran-order matrix reduced over every axis (one array input), or ""."""
    if not _packs(plan):
        return ""
    acc_t, finish, in_t = plan.acc_t, _finish(plan), plan.in_types[0]
    packed_leaf = _leaf(plan, "leaf_packed", lambda k: "buf[start - first + at]", "", "")
    return f"""    }} else if (transposed) {{
        /* A Fortran-order matrix, every axis reduced: each chunk of the logical (row-major) order is packed,
           reading memory in order, into the thread's buffer, then reduced as leaf_flat would: the same bits. */
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        const int threads = OPKIT_THREADS_FOR(m);
        {in_t}* buffers = ({in_t}*)malloc(threads * OPKIT_REDUCE_CHUNK * sizeof({in_t}));
        {acc_t}* partial = ({acc_t}*)malloc(chunks * sizeof({acc_t}));
        if (!buffers || !partial) {{ free(buffers); free(partial); PyErr_NoMemory(); {sub['fail']} }}
        opkit_reduce_for(chunks, threads, [&](npy_intp c) {{
            {in_t}* buf = buffers + OPKIT_THREAD_INDEX() * OPKIT_REDUCE_CHUNK;
            const npy_intp first = c * OPKIT_REDUCE_CHUNK;
            const npy_intp count = m - first < OPKIT_REDUCE_CHUNK ? m - first : OPKIT_REDUCE_CHUNK;
            opkit_reduce_pack_transposed(p0, t_rows, t_cols, first, count, buf);
{packed_leaf}
            auto one = [&](npy_intp start, npy_intp n) {{ return leaf_packed(0, start, n); }};
            partial[c] = opkit_reduce_pairwise<{acc_t}>(leaf_size, first, count, one, combine);
        }});
        const {acc_t} acc = opkit_reduce_tree(partial, chunks, combine);
        pz[0] = {finish};
        free(buffers);
        free(partial);"""


def _loops(plan, sub):
    """C code running the leaves: rows of outputs (dense, n_in > 1), one output's chunks over threads
    (few outputs), or outputs over threads; the strided leaf_nd where the layout is not dense."""
    acc_t, finish = plan.acc_t, _finish(plan)
    lanes = LANES
    return f"""
    if (n_out > 0 && m == 0) {{
        const {acc_t} acc = {_identity(plan.op.kind, plan.acc)};
        for (npy_intp o = 0; o < n_out; ++o) pz[o] = {finish};
    }} else if (dense && n_in > 1 && n_out > 0) {{
        /* Rows of W adjacent outputs; the tree of each is cut `depth` levels down into subtrees, a number
           fixed by the shape (never by the thread count), so that a few outputs still give threads work. */
        const npy_intp W = n_in <= 16384 ? n_in : 16384;
        const npy_intp blocks = (n_in + W - 1) / W, items = n_outer * blocks;
        int depth = 0;
        while ((items << depth) < 16 && depth < 4) ++depth;
        opkit_reduce_node nodes[16];
        int n_nodes = 0;
        const opkit_reduce_node root = {{0, (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK, 0, 0}};
        opkit_reduce_frontier(leaf_size, root, m, depth, nodes, &n_nodes);
        const npy_intp tasks = items * n_nodes, per_thread = ({lanes} + opkit_reduce_tree_levels(leaf_size, m) + 1) * W;
        const int threads = OPKIT_THREADS_FOR(n_out * m);
        {acc_t}* scratch = ({acc_t}*)malloc((threads * per_thread + (n_nodes > 1 ? tasks * W : 0)) * sizeof({acc_t}));
        if (!scratch) {{ PyErr_NoMemory(); {sub['fail']} }}
        {acc_t}* rows = scratch + threads * per_thread;  /* the subtrees' results, when n_nodes > 1 */
        opkit_reduce_for(tasks, threads, [&](npy_intp t) {{
            const npy_intp item = t / n_nodes, b = item / blocks, c0 = (item % blocks) * W;
            const npy_intp width = n_in - c0 < W ? n_in - c0 : W;
            {acc_t}* mine = scratch + OPKIT_THREAD_INDEX() * per_thread;
            {acc_t}* res = n_nodes > 1 ? rows + t * W : mine + {lanes} * W;
            auto leaf = [&](npy_intp start, npy_intp n, {acc_t}* out) {{
                leaf_rows(b * m * n_in + c0, width, start, n, out, mine);
            }};
            opkit_reduce_node_rows<{acc_t}>(leaf_size, nodes[t % n_nodes], m, width, res, mine + ({lanes} + 1) * W, leaf,
                                            combine);
            if (n_nodes == 1)
                for (npy_intp w = 0; w < width; ++w) {{
                    const {acc_t} acc = res[w];
                    pz[b * n_in + c0 + w] = {finish};
                }}
        }});
        for (npy_intp item = 0; n_nodes > 1 && item < items; ++item) {{
            const npy_intp b = item / blocks, c0 = (item % blocks) * W;
            const npy_intp width = n_in - c0 < W ? n_in - c0 : W;
            int index = 0;
            const {acc_t}* res = opkit_reduce_combine_frontier(leaf_size, root, m, depth, rows + item * n_nodes * W, W, &index,
                                                               combine);
            for (npy_intp w = 0; w < width; ++w) {{
                const {acc_t} acc = res[w];
                pz[b * n_in + c0 + w] = {finish};
            }}
        }}
        free(scratch);{_transposed_branch(plan, sub)}
    }} else if (n_out == 1 || (n_out < 16 && m >= OPKIT_REDUCE_CHUNK)) {{
        for (npy_intp o = 0; o < n_out; ++o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            {acc_t} acc;
            if (dense ? opkit_reduce_threaded(leaf_size, m, one_flat, combine, &acc)
                      : opkit_reduce_threaded(leaf_size, m, one_nd, combine, &acc)) {sub['fail']}
            pz[o] = {finish};
        }}
    }} else if (n_out > 0) {{
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        opkit_reduce_for(n_out, OPKIT_THREADS_FOR(n_out * m), [&](npy_intp o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            const {acc_t} acc = dense ? opkit_reduce_chunks<{acc_t}>(leaf_size, 0, chunks, m, one_flat, combine)
                                      : opkit_reduce_chunks<{acc_t}>(leaf_size, 0, chunks, m, one_nd, combine);
            pz[o] = {finish};
        }});
    }}"""


def reduce_c_code(op, node, inputs, outputs, sub):
    """Return the C code of a Reduce (or FusedReduce) node."""
    plan = _plan(op, node)
    out, = outputs
    nd, nin = plan.nd, plan.n_inputs
    reduced = [int(a in plan.axes) for a in range(nd)]
    odims = [f"dims[{a}]" if not reduced[a] else "1" for a in range(nd) if op.keepdims or not reduced[a]]
    what = f"the inputs of {op}".replace("\\", "\\\\").replace('"', '\\"')  # a C string literal
    combine = _COMBINE[op.kind][_acc_kind(plan.acc)]
    return f"""
{{
    PyArrayObject* ins[{nin}] = {{{', '.join(inputs)}}};
    npy_intp dims[{max(nd, 1)}];
    if (opkit_broadcast({nd}, {nin}, ins, dims, "{what}")) {sub['fail']}
    const int reduced[{max(nd, 1)}] = {{{', '.join(map(str, reduced)) or '0'}}};
    npy_intp n_out = 1, m = 1;
    for (int d = 0; d < {nd}; ++d) (reduced[d] ? m : n_out) *= dims[d];
    {_empty_check(plan, sub)}
    npy_intp odims[{max(len(odims), 1)}] = {{{', '.join(odims) or '0'}}};
    if (opkit_prepare_output(&{out}, {len(odims)}, odims, {c_typenum(node.outputs[0].dtype)})) {sub['fail']}
    {plan.out_t}* pz = ({plan.out_t}*)PyArray_DATA({out});
    auto combine = []({plan.acc_t} a, {plan.acc_t} b) -> {plan.acc_t} {{ return ({plan.acc_t})({combine}); }};
    const npy_intp leaf_size = {_leaf_size(plan)};  /* elements per leaf of the tree */
    int opkit_bad_pow = 0;  /* set by opkit_ipow on a negative integer exponent */
    (void)opkit_bad_pow;
    const int scalar[{nin}] = {{{', '.join(str(int(s)) for s in plan.scalar)}}};
    npy_intp n_outer = n_out, n_in = 1;
    const bool dense = opkit_reduce_dense<{nin}>(ins, scalar, {nd}, dims, reduced, &n_outer, &n_in);
    npy_intp t_rows = 0, t_cols = 0;
    const bool transposed = {'true' if _packs(plan) else 'false'} && !dense && n_out == 1
                            && opkit_reduce_transposed(ins[0], {nd}, dims, &t_rows, &t_cols);
    (void)t_rows; (void)t_cols;
    opkit_reduce_axes<{nin}> axes;
    if (!dense) opkit_reduce_split_axes(axes, ins, {nd}, dims, reduced);
{_leaves(plan, inputs)}
{_loops(plan, sub)}
    if (opkit_bad_pow) {{
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        {sub['fail']}
    }}
}}
"""

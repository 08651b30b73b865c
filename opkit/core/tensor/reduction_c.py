"""C code of the reductions: one pass over the (elementwise-computed) values, blocked and pairwise.

The reduced elements of each output element are numbered 0..m-1 (row-major over
the reduced axes). They are cut into chunks of OPKIT_REDUCE_CHUNK elements, each
reduced pairwise down to leaves of 128 elements summed with 8 accumulators (as
numpy's pairwise summation), and the chunk results are combined pairwise in a
fixed tree. The blocks depend only on m, never on the thread count, so a result
is bit-identical whatever OPKIT_THREADS_FOR gives (threads take whole chunks, or
whole output elements, and write each result to its own slot).

Integer sums and products are computed in npy_uint64 (they wrap like numpy's);
max/min propagate NaN like numpy's.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.c_interface import c_dtype, c_typenum
from opkit.core.tensor.elemwise_c import program_statements
from opkit.core.tensor.scalar_ops import has_c_dtype

REDUCE_SUPPORT_CODE = r"""
#ifndef OPKIT_REDUCE_SUPPORT
#define OPKIT_REDUCE_SUPPORT
/* Threads for a loop over n elements; the generated module defines it (1 below a threshold). */
#ifndef OPKIT_THREADS_FOR
#define OPKIT_THREADS_FOR(n) 1
#endif
#define OPKIT_REDUCE_LEAF 128     /* elements per pairwise leaf, as numpy's PW_BLOCKSIZE */
#define OPKIT_REDUCE_CHUNK 65536  /* elements per unit of parallel work: fixed, whatever the thread count */

/* Reduce elements [start, start + n) pairwise down to leaves of at most OPKIT_REDUCE_LEAF. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_pairwise(npy_intp start, npy_intp n, const Leaf& leaf, const Combine& combine)
{
    if (n <= OPKIT_REDUCE_LEAF) return leaf(start, n);
    npy_intp half = (n / 2) / OPKIT_REDUCE_LEAF * OPKIT_REDUCE_LEAF;
    if (half == 0) half = OPKIT_REDUCE_LEAF;
    const Acc left = opkit_reduce_pairwise<Acc>(start, half, leaf, combine);
    return combine(left, opkit_reduce_pairwise<Acc>(start + half, n - half, leaf, combine));
}

/* Reduce chunks [first, first + count) of m elements and combine them in a fixed binary tree. */
template <typename Acc, typename Leaf, typename Combine>
static Acc opkit_reduce_chunks(npy_intp first, npy_intp count, npy_intp m, const Leaf& leaf, const Combine& combine)
{
    if (count == 1) {
        const npy_intp start = first * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        return opkit_reduce_pairwise<Acc>(start, n, leaf, combine);
    }
    const npy_intp half = count / 2;
    const Acc left = opkit_reduce_chunks<Acc>(first, half, m, leaf, combine);
    return combine(left, opkit_reduce_chunks<Acc>(first + half, count - half, m, leaf, combine));
}

/* The same tree as opkit_reduce_chunks over chunk results already computed. */
template <typename Acc, typename Combine>
static Acc opkit_reduce_tree(const Acc* partial, npy_intp count, const Combine& combine)
{
    if (count == 1) return partial[0];
    const npy_intp half = count / 2;
    const Acc left = opkit_reduce_tree(partial, half, combine);
    return combine(left, opkit_reduce_tree(partial + half, count - half, combine));
}

/* Reduce m > 0 elements, its chunks spread over threads; 0 on success, -1 with MemoryError set. */
template <typename Acc, typename Leaf, typename Combine>
static int opkit_reduce_threaded(npy_intp m, const Leaf& leaf, const Combine& combine, Acc* result)
{
    const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
    const int threads = OPKIT_THREADS_FOR(m);
    if (chunks == 1 || threads <= 1) {
        *result = opkit_reduce_chunks<Acc>(0, chunks, m, leaf, combine);
        return 0;
    }
    Acc* partial = (Acc*)malloc(chunks * sizeof(Acc));
    if (!partial) { PyErr_NoMemory(); return -1; }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
    for (npy_intp c = 0; c < chunks; ++c) {
        const npy_intp start = c * OPKIT_REDUCE_CHUNK;
        const npy_intp n = m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK;
        partial[c] = opkit_reduce_pairwise<Acc>(start, n, leaf, combine);
    }
    *result = opkit_reduce_tree(partial, chunks, combine);
    free(partial);
    return 0;
}
#endif
"""

# kind -> C expression combining accumulators a and b, by accumulator kind: f(loat), i(nteger), b(ool)
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
    return (all(has_c_dtype(v.dtype) for v in node.inputs) and has_c_dtype(value) and has_c_dtype(out)
            and _acc_kind(acc) in _COMBINE[op.kind] and all(s.has_c(d) for s, _, d in program))


def _value_lines(op, node, load):
    """C statements computing `e`, the value to reduce in the accumulator type; `load(k)` reads input k."""
    program, n_inputs = op.reduce_program(node)
    in_ts = [c_dtype(v.dtype) for v in node.inputs]
    value = _value_dtype(op, node)
    acc_t = c_dtype(accumulator_dtype(op.kind, value, node.outputs[0].dtype))
    lines = [f"const {in_ts[k]} v{k} = {load(k)};" for k in range(n_inputs) if load(k) is not None]
    lines += program_statements(program, n_inputs)
    result = f"t{len(program) - 1}" if program else "v0"
    if np.dtype(value).kind == "b" and acc_t != "npy_bool":
        result = f"({result} != 0)"
    return lines + [f"const {acc_t} e = ({acc_t}){result};"]


def _leaf(name, op, node, load, locate, advance):
    """Return a C++ lambda `name(o, start, n)`: the numpy-style 8-accumulator reduction of a leaf."""
    value = _value_dtype(op, node)
    acc_t = c_dtype(accumulator_dtype(op.kind, value, node.outputs[0].dtype))
    identity = _identity(op.kind, accumulator_dtype(op.kind, value, node.outputs[0].dtype))
    body = "\n".join("            " + line for line in _value_lines(op, node, load))
    return f"""
    auto {name} = [&](npy_intp o, npy_intp start, npy_intp n) -> {acc_t} {{
{locate}
        {acc_t} r[8] = {{{', '.join([identity] * 8)}}};
        const npy_intp n8 = n - n % 8;
        npy_intp i = 0;
        for (; i < n8; i += 8) {{
            for (int k = 0; k < 8; ++k) {{
{body}
                r[k] = combine(r[k], e);
{advance}
            }}
        }}
        {acc_t} res = combine(combine(combine(r[0], r[1]), combine(r[2], r[3])),
                              combine(combine(r[4], r[5]), combine(r[6], r[7])));
        for (; i < n; ++i) {{
            const int k = 0; (void)k;
{body}
            res = combine(res, e);
{advance}
        }}
        return res;
    }};"""


def reduce_c_code(op, node, inputs, outputs, sub):
    """Return the C code of a Reduce (or fused reduce) node."""
    out, = outputs
    program, n_inputs = op.reduce_program(node)
    nd = max(v.ndim for v in node.inputs)
    axes = op._axes(nd)
    kept = [a for a in range(nd) if a not in axes]
    out_var = node.outputs[0]
    value = _value_dtype(op, node)
    acc = accumulator_dtype(op.kind, value, out_var.dtype)
    acc_t, out_t = c_dtype(acc), c_dtype(out_var.dtype)
    in_ts = [c_dtype(v.dtype) for v in node.inputs]
    scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
    what = f"the inputs of {op}".replace("\\", "\\\\").replace('"', '\\"')
    odims = [f"dims[{a}]" if a in kept else "1" for a in range(nd) if a in kept or op.keepdims]
    nr, nk = len(axes), len(kept)

    # The contiguous path: every non-scalar input C-contiguous with the full shape, reduced axes trailing.
    trailing = list(axes) == list(range(nk, nd))
    flat_load = lambda k: None if scalar[k] else f"p{k}[j0 + i + k]"  # noqa: E731
    hoisted = "\n".join(f"    const {in_ts[k]} v{k} = p{k}[0];" for k in range(n_inputs) if scalar[k])
    flat_leaf = _leaf("leaf_flat", op, node, flat_load, "        const npy_intp j0 = o * m + start;", "")
    contiguous = " && ".join([f"opkit_full_contiguous({inputs[k]}, {nd}, dims)" for k in range(n_inputs)
                              if not scalar[k]] or ["1"])

    # The general path: byte pointers advanced over the reduced axes (row-major), kept axes by o.
    nd_load = lambda k: f"*(const {in_ts[k]}*)ptr[{k}]"  # noqa: E731
    locate = f"""        char* ptr[{n_inputs}];
        npy_intp idx[{max(nr, 1)}];
        for (int q = 0; q < {n_inputs}; ++q) ptr[q] = base[q];
        npy_intp rest = o;
        for (int d = {nk - 1}; d >= 0; --d) {{
            const npy_intp at = rest % kdims[d]; rest /= kdims[d];
            for (int q = 0; q < {n_inputs}; ++q) ptr[q] += at * kstrides[q][d];
        }}
        rest = start;
        for (int d = {nr - 1}; d >= 0; --d) {{
            idx[d] = rest % rdims[d]; rest /= rdims[d];
            for (int q = 0; q < {n_inputs}; ++q) ptr[q] += idx[d] * rstrides[q][d];
        }}
        (void)idx;"""
    advance = "" if nr == 0 else f"""                for (int q = 0; q < {n_inputs}; ++q) ptr[q] += rstrides[q][{nr - 1}];
                for (int d = {nr - 1}; d > 0 && ++idx[d] == rdims[d]; --d) {{
                    idx[d] = 0;
                    for (int q = 0; q < {n_inputs}; ++q) ptr[q] += rstrides[q][d - 1] - rdims[d] * rstrides[q][d];
                }}"""
    nd_leaf = _leaf("leaf_nd", op, node, nd_load, locate, advance)
    split_strides = "\n".join(
        f"        for (int d = 0; d < {nk}; ++d) kstrides[{k}][d] = strides[{k}][kept_axes[d]];\n"
        f"        for (int d = 0; d < {nr}; ++d) rstrides[{k}][d] = strides[{k}][reduced_axes[d]];"
        for k in range(n_inputs))
    combine = _COMBINE[op.kind][_acc_kind(acc)]
    finish = f"({out_t})((npy_float64)acc / (npy_float64)m)" if op.kind == "mean" else f"({out_t})acc"
    empty_error = ""
    if op.kind in ("max", "min"):
        ufunc = "maximum" if op.kind == "max" else "minimum"
        empty_error = f"""if (m == 0) {{
        PyErr_SetString(PyExc_ValueError, "zero-size array to reduction operation {ufunc} which has no identity");
        {sub['fail']}
    }}"""
    return f"""
{{
    PyArrayObject* ins[{n_inputs}] = {{{', '.join(inputs)}}};
    npy_intp dims[{max(nd, 1)}];
    if (opkit_broadcast({nd}, {n_inputs}, ins, dims, "{what}")) {sub['fail']}
    const int kept_axes[{max(nk, 1)}] = {{{', '.join(map(str, kept)) or '0'}}};
    const int reduced_axes[{max(nr, 1)}] = {{{', '.join(map(str, axes)) or '0'}}};
    (void)kept_axes; (void)reduced_axes;
    npy_intp kdims[{max(nk, 1)}], rdims[{max(nr, 1)}];
    npy_intp n_out = 1, m = 1;
    for (int d = 0; d < {nk}; ++d) {{ kdims[d] = dims[kept_axes[d]]; n_out *= kdims[d]; }}
    for (int d = 0; d < {nr}; ++d) {{ rdims[d] = dims[reduced_axes[d]]; m *= rdims[d]; }}
    {empty_error}
    npy_intp odims[{max(len(odims), 1)}] = {{{', '.join(odims) or '0'}}};
    if (opkit_prepare_output(&{out}, {len(odims)}, odims, {c_typenum(out_var.dtype)})) {sub['fail']}
    {out_t}* pz = ({out_t}*)PyArray_DATA({out});
    auto combine = []({acc_t} a, {acc_t} b) -> {acc_t} {{ return ({acc_t})({combine}); }};
    int opkit_bad_pow = 0;  /* set by opkit_ipow on a negative integer exponent */
    (void)opkit_bad_pow;
{chr(10).join(f"    const {in_ts[k]}* p{k} = (const {in_ts[k]}*)PyArray_DATA({inputs[k]}); (void)p{k};"
              for k in range(n_inputs))}
{hoisted}
{flat_leaf}
    npy_intp strides[{n_inputs}][NPY_MAXDIMS];
    npy_intp kstrides[{n_inputs}][{max(nk, 1)}], rstrides[{n_inputs}][{max(nr, 1)}];
    char* base[{n_inputs}] = {{{', '.join(f"(char*)PyArray_DATA({i})" for i in inputs)}}};
    (void)kstrides; (void)rstrides; (void)base;
{nd_leaf}
    const bool flat = {'true' if trailing else 'false'} && ({contiguous});
    if (!flat) {{
{chr(10).join(f"        opkit_broadcast_strides({inputs[k]}, {nd}, strides[{k}]);" for k in range(n_inputs))}
{split_strides}
    }}
    if (n_out > 0 && m == 0) {{
        const {acc_t} acc = {_identity(op.kind, acc)};
        for (npy_intp o = 0; o < n_out; ++o) pz[o] = {finish};
    }} else if (n_out == 1 || (n_out < 16 && m >= OPKIT_REDUCE_CHUNK)) {{
        for (npy_intp o = 0; o < n_out; ++o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            {acc_t} acc;
            if ((flat ? opkit_reduce_threaded(m, one_flat, combine, &acc)
                      : opkit_reduce_threaded(m, one_nd, combine, &acc))) {sub['fail']}
            pz[o] = {finish};
        }}
    }} else if (n_out > 0) {{
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        const int threads = OPKIT_THREADS_FOR(n_out * m);
        (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (npy_intp o = 0; o < n_out; ++o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            const {acc_t} acc = flat ? opkit_reduce_chunks<{acc_t}>(0, chunks, m, one_flat, combine)
                                     : opkit_reduce_chunks<{acc_t}>(0, chunks, m, one_nd, combine);
            pz[o] = {finish};
        }}
    }}
    if (opkit_bad_pow) {{
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        {sub['fail']}
    }}
}}
"""

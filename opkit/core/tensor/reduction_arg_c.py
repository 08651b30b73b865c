"""C code of argmax and argmin: one pass, in memory order where the input is dense.

The answer (the first index of the extreme, or of the first NaN as numpy gives) does
not depend on the order the elements are visited in, so any cut of the work gives
the same index: threads take whole outputs, chunks of one output's elements, or
chunks of rows, and the partial answers are combined in index order (a later one
wins only if strictly better). Layouts are those of the reductions
(opkit_reduce_dense in reduction_c_support): a last axis reduced scans each output's
elements with numpy's own loop for the dtype (PyArray_ArgFunc: vectorized, and numpy's
answer by construction), threads taking outputs or chunks; a non-last axis scans rows
of adjacent outputs (a vector compare-and-blend of value and row index per output);
other layouts use the strided cursor.
"""

from __future__ import annotations

import numpy as np

from opkit.core.tensor.c_interface import c_dtype
from opkit.core.tensor.scalar_ops import has_c_dtype


def arg_has_c(op, node):
    """True for real and bool inputs with a C type (float16 and complex run numpy's)."""
    dtype = np.dtype(node.inputs[0].dtype)
    return dtype.kind in "biuf" and dtype != np.float16 and has_c_dtype(dtype)


def _better(kind, dtype):
    """C expression: does value e replace the current best b (first index kept on ties)?

    A NaN beats every number and the first NaN is kept, as numpy's.
    """
    cmp = ">" if kind == "argmax" else "<"
    if np.dtype(dtype).kind == "f":
        return f"(e {cmp} b || (e != e && b == b))"
    return f"(e {cmp} b)"


def arg_c_code(op, node, inputs, outputs, sub):
    """Return the C code of an Argmax or Argmin node."""
    x, = inputs
    z, = outputs
    nd = node.inputs[0].ndim
    axes = op._axes(nd)
    reduced = [int(a in axes) for a in range(nd)]
    odims = [f"dims[{a}]" if not reduced[a] else "1" for a in range(nd) if op.keepdims or not reduced[a]]
    t = c_dtype(node.inputs[0].dtype)
    better = _better(op.kind, node.inputs[0].dtype)
    fail = sub["fail"]
    return f"""
{{
    PyArrayObject* ins[1] = {{{x}}};
    npy_intp dims[{max(nd, 1)}];
    if (PyArray_NDIM({x}) != {nd}) {{
        PyErr_Format(PyExc_ValueError, "{op.kind}: expected a {nd}-d array, got %d-d", PyArray_NDIM({x}));
        {fail}
    }}
    for (int d = 0; d < {nd}; ++d) dims[d] = PyArray_DIMS({x})[d];
    const int reduced[{max(nd, 1)}] = {{{', '.join(map(str, reduced)) or '0'}}};
    npy_intp n_out = 1, m = 1;
    for (int d = 0; d < {nd}; ++d) (reduced[d] ? m : n_out) *= dims[d];
    if (m == 0) {{  /* numpy raises even when there is no output: argmin of a (0, 0) matrix over axis 1 */
        PyErr_SetString(PyExc_ValueError, "attempt to get {op.kind} of an empty sequence");
        {fail}
    }}
    npy_intp odims[{max(len(odims), 1)}] = {{{', '.join(odims) or '0'}}};
    if (opkit_prepare_output(&{z}, {len(odims)}, odims, NPY_INT64)) {fail}
    npy_int64* pz = (npy_int64*)PyArray_DATA({z});
    const int scalar[1] = {{0}};
    npy_intp n_outer = n_out, n_in = 1;
    const bool dense = opkit_reduce_dense<1>(ins, scalar, {nd}, dims, reduced, &n_outer, &n_in);
    opkit_reduce_axes<1> axes;
    if (!dense) opkit_reduce_split_axes(axes, ins, {nd}, dims, reduced);
    const {t}* p = (const {t}*)PyArray_DATA({x});
    auto better = []({t} e, {t} b) -> bool {{ return {better}; }};
    PyArray_ArgFunc* argfunc = PyDataType_GetArrFuncs(PyArray_DESCR({x}))->{op.kind};
    /* Elements [start, start + n) (n > 0) of output o: the best value and its index into *bv, *bi. */
    auto scan = [&](npy_intp o, npy_intp start, npy_intp n, {t}* bv, npy_int64* bi) {{
        npy_intp i = 0;
        {t} rb;
        npy_int64 ri;
        if (dense) {{  /* a contiguous run: numpy's own vector loop for this dtype (it needs no GIL) */
            const {t}* q = p + o * m + start;
            npy_intp at = 0;
            argfunc((void*)q, n, &at, (void*){x});
            rb = q[at];
            ri = at;
        }} else {{
            opkit_reduce_cursor<1> cursor;
            opkit_reduce_locate(cursor, axes, o, start);
            rb = *(const {t}*)cursor.ptr[0];
            ri = 0;
            for (i = 1; i < n; ++i) {{
                opkit_reduce_advance(cursor, axes);
                const {t} e = *(const {t}*)cursor.ptr[0];
                if (better(e, rb)) {{ rb = e; ri = i; }}
            }}
        }}
        *bv = rb;
        *bi = start + ri;
    }};
    if (n_out == 0) {{
    }} else if (dense && n_in > 1) {{
        /* Rows of W adjacent outputs, cut into `parts` runs of rows (a number fixed by the shape). */
        const npy_intp W = n_in <= 16384 ? n_in : 16384;
        const npy_intp blocks = (n_in + W - 1) / W, items = n_outer * blocks;
        npy_intp parts = items >= 16 ? 1 : (16 + items - 1) / items;
        if (parts > m) parts = m;
        const npy_intp rows_per = (m + parts - 1) / parts;
        parts = (m + rows_per - 1) / rows_per;
        const npy_intp tasks = items * parts;
        {t}* values = ({t}*)malloc(tasks * W * sizeof({t}));
        npy_int64* where = (npy_int64*)malloc(tasks * W * sizeof(npy_int64));
        if (!values || !where) {{ free(values); free(where); PyErr_NoMemory(); {fail} }}
        opkit_reduce_for(tasks, OPKIT_THREADS_FOR(n_out * m), [&](npy_intp task) {{
            const npy_intp item = task / parts, part = task % parts;
            const npy_intp blk = item / blocks, c0 = (item % blocks) * W;
            const npy_intp width = n_in - c0 < W ? n_in - c0 : W;
            const npy_intp r0 = part * rows_per, r1 = r0 + rows_per < m ? r0 + rows_per : m;
            {t}* bv = values + task * W;
            npy_int64* bi = where + task * W;
            const {t}* row = p + (blk * m + r0) * n_in + c0;
            for (npy_intp w = 0; w < width; ++w) {{ bv[w] = row[w]; bi[w] = r0; }}
            for (npy_intp r = r0 + 1; r < r1; ++r) {{
                row = p + (blk * m + r) * n_in + c0;
#pragma omp simd
                for (npy_intp w = 0; w < width; ++w) {{
                    const {t} e = row[w], b = bv[w];
                    const bool take = {better};
                    bv[w] = take ? e : b;
                    bi[w] = take ? (npy_int64)r : bi[w];
                }}
            }}
        }});
        for (npy_intp item = 0; item < items; ++item) {{
            const npy_intp blk = item / blocks, c0 = (item % blocks) * W;
            const npy_intp width = n_in - c0 < W ? n_in - c0 : W;
            {t}* bv = values + item * parts * W;
            npy_int64* bi = where + item * parts * W;
            for (npy_intp part = 1; part < parts; ++part)  /* in index order: a later run wins if better */
                for (npy_intp w = 0; w < width; ++w) {{
                    const {t} e = bv[part * W + w], b = bv[w];
                    if ({better}) {{ bv[w] = e; bi[w] = bi[part * W + w]; }}
                }}
            for (npy_intp w = 0; w < width; ++w) pz[blk * n_in + c0 + w] = bi[w];
        }}
        free(values);
        free(where);
    }} else if (n_out >= 16 || m < 2 * OPKIT_REDUCE_CHUNK) {{
        opkit_reduce_for(n_out, OPKIT_THREADS_FOR(n_out * m), [&](npy_intp o) {{
            {t} bv;
            npy_int64 bi;
            scan(o, 0, m, &bv, &bi);
            pz[o] = bi;
        }});
    }} else {{
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        {t}* values = ({t}*)malloc(chunks * sizeof({t}));
        npy_int64* where = (npy_int64*)malloc(chunks * sizeof(npy_int64));
        if (!values || !where) {{ free(values); free(where); PyErr_NoMemory(); {fail} }}
        for (npy_intp o = 0; o < n_out; ++o) {{
            opkit_reduce_for(chunks, OPKIT_THREADS_FOR(m), [&](npy_intp c) {{
                const npy_intp start = c * OPKIT_REDUCE_CHUNK;
                scan(o, start, m - start < OPKIT_REDUCE_CHUNK ? m - start : OPKIT_REDUCE_CHUNK, values + c, where + c);
            }});
            for (npy_intp c = 1; c < chunks; ++c) {{  /* in index order: a later chunk wins if better */
                const {t} e = values[c], b = values[0];
                if ({better}) {{ values[0] = e; where[0] = where[c]; }}
            }}
            pz[o] = where[0];
        }}
        free(values);
        free(where);
    }}
}}
"""

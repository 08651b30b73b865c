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

from dataclasses import dataclass

import numpy as np

from opkit.core.tensor.c_interface import c_dtype, c_typenum
from opkit.core.tensor.elemwise_c import program_statements
from opkit.core.tensor.scalar_ops import has_c_dtype, program_operand_dtypes

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


def _lane_update(plan, r="r[k]", nan="nan[k]"):
    """C statements folding `e` into lane r[k].

    Float max/min compare without the NaN test and keep any NaN met in nan[k]:
    two compare-and-blends, which vectorize; the leaf then returns that NaN.
    """
    if plan.op.kind in ("max", "min") and np.dtype(plan.acc).kind == "f":
        better = ">" if plan.op.kind == "max" else "<"
        return f"{r} = (e {better} {r}) ? e : {r}; {nan} = (e != e) ? e : {nan};"
    return f"{r} = combine({r}, e);"


def _leaf(plan, name, load, locate, advance):
    """Return a C++ lambda `name(o, start, n)`: numpy's 8-accumulator reduction of a leaf.

    `load(k)` reads input k at element `at` of the leaf; `locate` and `advance`
    move the strided path's cursor (empty for the contiguous path).
    """
    acc_t, identity = plan.acc_t, _identity(plan.op.kind, plan.acc)
    body = "\n".join("                " + line for line in _value_lines(plan, load))
    return f"""
    auto {name} = [&](npy_intp o, npy_intp start, npy_intp n) -> {acc_t} {{
        {locate}
        {acc_t} r[8] = {{{', '.join([identity] * 8)}}};
        {acc_t} nan[8] = {{0, 0, 0, 0, 0, 0, 0, 0}};  /* a NaN met by lane k (float max/min) */
        const npy_intp n8 = n - n % 8;
        npy_intp i = 0;
        for (; i < n8; i += 8) {{
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k) {{  /* unrolled: the 8 lanes stay in registers, as vectors */
                const npy_intp at = i + k; (void)at;
{body}
                {_lane_update(plan)}
                {advance}
            }}
        }}
        {acc_t} res = combine(combine(combine(r[0], r[1]), combine(r[2], r[3])),
                              combine(combine(r[4], r[5]), combine(r[6], r[7])));
        for (int k = 0; k < 8; ++k) if (nan[k] != nan[k]) res = nan[k];
        for (; i < n; ++i) {{
            const npy_intp at = i; (void)at;
{body}
            res = combine(res, e);
            {advance}
        }}
        return res;
    }};"""


def _tile_leaf(plan):
    """Return C++ lambdas leaf_tile(o0, start, n) and combine_tile, for reductions over leading axes.

    leaf_tile computes the leaves of the OPKIT_REDUCE_TILE adjacent outputs o0, o0 + 1, ...
    at once, each with exactly the lanes, order and tail of its own leaf_flat (so the same
    bits), reading rows of adjacent elements: the loads are contiguous and the work
    vectorizes across the outputs.
    """
    acc_t, identity = plan.acc_t, _identity(plan.op.kind, plan.acc)
    tile_t = f"opkit_reduce_tile<{acc_t}>"
    load = lambda k: None if plan.scalar[k] else f"p{k}[(start + at) * n_out + o0 + w]"  # noqa: E731
    body = "\n".join("                    " + line for line in _value_lines(plan, load))
    pairs = "combine(combine(combine(r[0][w], r[1][w]), combine(r[2][w], r[3][w])), " \
            "combine(combine(r[4][w], r[5][w]), combine(r[6][w], r[7][w])))"
    return f"""
    auto combine_tile = [&](const {tile_t}& a, const {tile_t}& b) -> {tile_t} {{
        {tile_t} c;
        for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) c.v[w] = combine(a.v[w], b.v[w]);
        return c;
    }};
    auto leaf_tile = [&](npy_intp o0, npy_intp start, npy_intp n) -> {tile_t} {{
        {acc_t} r[8][OPKIT_REDUCE_TILE], nan[8][OPKIT_REDUCE_TILE];
        for (int k = 0; k < 8; ++k)
            for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) {{ r[k][w] = {identity}; nan[k][w] = 0; }}
        const npy_intp n8 = n - n % 8;
        npy_intp i = 0;
        for (; i < n8; i += 8) {{
            for (int k = 0; k < 8; ++k) {{
                const npy_intp at = i + k;
                for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) {{
{body}
                    {_lane_update(plan, "r[k][w]", "nan[k][w]")}
                }}
            }}
        }}
        {tile_t} res;
        for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) {{
            res.v[w] = {pairs};
            for (int k = 0; k < 8; ++k) if (nan[k][w] != nan[k][w]) res.v[w] = nan[k][w];
        }}
        for (; i < n; ++i) {{
            const npy_intp at = i;
            for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) {{
{body}
                res.v[w] = combine(res.v[w], e);
            }}
        }}
        return res;
    }};"""


def _leading_condition(plan, inputs):
    """C condition for the tiled path: reduced axes leading, every non-scalar input C-contiguous and full."""
    if not plan.axes or list(plan.axes) != list(range(len(plan.axes))) or len(plan.axes) == plan.nd:
        return "false"
    return " && ".join([f"opkit_full_contiguous({inputs[k]}, {plan.nd}, dims)" for k in range(plan.n_inputs)
                        if not plan.scalar[k]] or ["true"])


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
    return f"{pointers}\n{hoisted}\n{flat}\n{strided}\n{_tile_leaf(plan)}"


def _flat_condition(plan, inputs):
    """C condition for the contiguous path: reduced axes trailing, every non-scalar input C-contiguous and full."""
    if list(plan.axes) != list(range(plan.nd - len(plan.axes), plan.nd)):
        return "false"
    return " && ".join([f"opkit_full_contiguous({inputs[k]}, {plan.nd}, dims)" for k in range(plan.n_inputs)
                        if not plan.scalar[k]] or ["true"])


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


def _loops(plan, sub):
    """C code running the leaves: over chunks (threads within one output) or over outputs (a thread each)."""
    acc_t, finish = plan.acc_t, _finish(plan)
    return f"""
    if (n_out > 0 && m == 0) {{
        const {acc_t} acc = {_identity(plan.op.kind, plan.acc)};
        for (npy_intp o = 0; o < n_out; ++o) pz[o] = {finish};
    }} else if (leading && n_out >= OPKIT_REDUCE_TILE) {{
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        const npy_intp tiles = n_out / OPKIT_REDUCE_TILE;
        opkit_reduce_for(tiles, OPKIT_THREADS_FOR(n_out * m), [&](npy_intp t) {{
            const npy_intp o0 = t * OPKIT_REDUCE_TILE;
            auto one_tile = [&](npy_intp start, npy_intp n) {{ return leaf_tile(o0, start, n); }};
            const opkit_reduce_tile<{acc_t}> accs = opkit_reduce_chunks<opkit_reduce_tile<{acc_t}>>(
                0, chunks, m, one_tile, combine_tile);
            for (int w = 0; w < OPKIT_REDUCE_TILE; ++w) {{
                const {acc_t} acc = accs.v[w];
                pz[o0 + w] = {finish};
            }}
        }});
        for (npy_intp o = tiles * OPKIT_REDUCE_TILE; o < n_out; ++o) {{
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            const {acc_t} acc = opkit_reduce_chunks<{acc_t}>(0, chunks, m, one_nd, combine);
            pz[o] = {finish};
        }}
    }} else if (n_out == 1 || (n_out < 16 && m >= OPKIT_REDUCE_CHUNK)) {{
        for (npy_intp o = 0; o < n_out; ++o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            {acc_t} acc;
            if (flat ? opkit_reduce_threaded(m, one_flat, combine, &acc)
                     : opkit_reduce_threaded(m, one_nd, combine, &acc)) {sub['fail']}
            pz[o] = {finish};
        }}
    }} else if (n_out > 0) {{
        const npy_intp chunks = (m + OPKIT_REDUCE_CHUNK - 1) / OPKIT_REDUCE_CHUNK;
        opkit_reduce_for(n_out, OPKIT_THREADS_FOR(n_out * m), [&](npy_intp o) {{
            auto one_flat = [&](npy_intp start, npy_intp n) {{ return leaf_flat(o, start, n); }};
            auto one_nd = [&](npy_intp start, npy_intp n) {{ return leaf_nd(o, start, n); }};
            const {acc_t} acc = flat ? opkit_reduce_chunks<{acc_t}>(0, chunks, m, one_flat, combine)
                                     : opkit_reduce_chunks<{acc_t}>(0, chunks, m, one_nd, combine);
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
    int opkit_bad_pow = 0;  /* set by opkit_ipow on a negative integer exponent */
    (void)opkit_bad_pow;
    const bool flat = {_flat_condition(plan, inputs)};
    const bool leading = !flat && ({_leading_condition(plan, inputs)});
    opkit_reduce_axes<{nin}> axes;
    if (!flat) opkit_reduce_split_axes(axes, ins, {nd}, dims, reduced);
{_leaves(plan, inputs)}
{_loops(plan, sub)}
    if (opkit_bad_pow) {{
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        {sub['fail']}
    }}
}}
"""

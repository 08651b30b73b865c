"""C code for Elemwise nodes: broadcast, reuse or allocate the output, then one loop.

The fixed helpers it calls are the support code of elemwise.c."""

from __future__ import annotations

from opkit.core.tensor.c_interface import c_dtype, c_typenum


def program_statements(program, input_dtypes, scalar_inputs=()):
    """Return C statements computing each step of `program` into t0, t1, ...

    `program` is a sequence of (scalar_op, refs, out_dtype); a ref below
    len(input_dtypes) names input value v<ref>, others the step t<ref - n_inputs>.
    Each step casts its operands to its loop dtypes first (usually its own
    dtype), as numpy does, and rounds its result to its dtype (a `const` of that
    C type), as numpy does after every operation. Raises MethodNotDefined for a
    step without C code. `scalar_inputs` flags the inputs that are scalars by
    type: a step computed from those alone is one number too, which numpy's
    float power treats apart (see scalar_ops.pow).
    """
    from opkit.core.tensor.scalar_ops import program_operand_dtypes

    n_inputs = len(input_dtypes)
    uniform = [bool(f) for f in scalar_inputs] + [False] * (n_inputs - len(scalar_inputs))
    lines = []
    operand_dtypes = program_operand_dtypes(program, input_dtypes)
    for step, ((scalar_op, refs, out_dtype), loop) in enumerate(zip(program, operand_dtypes)):
        ctype = c_dtype(out_dtype)
        args = [f"({c_dtype(d)})" + (f"v{r}" if r < n_inputs else f"t{r - n_inputs}") for r, d in zip(refs, loop)]
        expr = scalar_op.c_expression(args, out_dtype, uniform_last=bool(refs) and uniform[refs[-1]])
        lines.append(f"const {ctype} t{step} = ({ctype}){expr};")
        uniform.append(all(uniform[r] for r in refs))
    return lines


def elemwise_c_code(node, name, inputs, outputs, sub, program):
    """Return the C code of an elementwise node computing `program` (see program_statements)."""
    out, = outputs
    out_var = node.outputs[0]
    nd, nin = out_var.ndim, len(inputs)
    out_t = c_dtype(out_var.dtype)
    in_ts = [c_dtype(v.dtype) for v in node.inputs]
    # Inputs that are scalars by type (constants, 0-d, all lengths 1) are read once, before
    # the loop, so the flat loop stays a plain vectorisable loop over the other inputs.
    scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
    steps = program_statements(program, [v.dtype for v in node.inputs], scalar)
    result = f"t{len(program) - 1}"
    hoisted = "\n".join(f"    const {in_ts[k]} v{k} = p{k}[0];" for k in range(nin) if scalar[k])
    # The output is never one of the inputs (a kept output is reused only when nothing else holds
    # it), so __restrict is true, and the loop vectorizes without run-time overlap checks; `omp simd`
    # (-fopenmp-simd, no threads) vectorizes it at -O2 whatever g++'s cost model thinks of the trip count.
    restricted = "\n".join([f"        const {in_ts[k]}* __restrict r{k} = p{k};" for k in range(nin) if not scalar[k]]
                           + [f"        {out_t}* __restrict rz = pz;"])
    flat_body = "\n".join([f"const {in_ts[k]} v{k} = r{k}[i];" for k in range(nin) if not scalar[k]] + steps
                          + [f"rz[i] = {result};"])
    nd_body = "\n".join([f"const {in_ts[k]} v{k} = *({in_ts[k]}*)ptrs[{k}];" for k in range(nin)] + steps
                        + [f"*({out_t}*)ptrs[{nin}] = {result};"])
    pointers = "\n".join(f"    const {in_ts[k]}* p{k} = (const {in_ts[k]}*)PyArray_DATA({inputs[k]});"
                         for k in range(nin))
    contiguous = " && ".join([f"opkit_full_contiguous({i}, {nd}, dims)" for k, i in enumerate(inputs)
                              if not scalar[k]] or ["1"])
    strides = "\n".join(f"    opkit_broadcast_strides({i}, {nd}, strides[{k}]);" for k, i in enumerate(inputs))
    what = f"the inputs of {node.op}".replace("\\", "\\\\").replace('"', '\\"')  # a C string literal
    bases = ", ".join([f"(char*)PyArray_DATA({i})" for i in inputs] + [f"(char*)PyArray_DATA({out})"])
    # Each chunk (one per thread) has its own opkit_bad_pow, which the steps set (opkit_ipow).
    report_pow = "if (opkit_bad_pow) __atomic_store_n(&opkit_bad_pow_any, 1, __ATOMIC_RELAXED);"
    return f"""
{{
    PyArrayObject* ins[{nin}] = {{{', '.join(inputs)}}};
    npy_intp dims[{max(nd, 1)}];
    if (opkit_broadcast({nd}, {nin}, ins, dims, "{what}")) {sub['fail']}
    if (opkit_prepare_output(&{out}, {nd}, dims, {c_typenum(out_var.dtype)})) {sub['fail']}
    {out_t}* pz = ({out_t}*)PyArray_DATA({out});
    int opkit_bad_pow_any = 0;  /* set when opkit_ipow met a negative integer exponent */
{pointers}
    const npy_intp n = PyArray_SIZE({out});
    if ({contiguous}) {{
{hoisted}
        opkit_parallel_range(n, [&](npy_intp opkit_begin, npy_intp opkit_end) {{
        int opkit_bad_pow = 0;
{restricted}
        #pragma omp simd reduction(|:opkit_bad_pow)
        for (npy_intp i = opkit_begin; i < opkit_end; ++i) {{
{flat_body}
        }}
        {report_pow}
        }});
    }} else {{
        npy_intp strides[{nin + 1}][NPY_MAXDIMS];
{strides}
        opkit_broadcast_strides({out}, {nd}, strides[{nin}]);
        char* base[{nin + 1}] = {{{bases}}};
        opkit_parallel_range(n, [&](npy_intp opkit_begin, npy_intp opkit_end) {{
        int opkit_bad_pow = 0;
        opkit_nd_loop_range<{nin + 1}>({nd}, dims, base, strides, opkit_begin, opkit_end, [&](char** ptrs) {{
{nd_body}
        }});
        {report_pow}
        }});
    }}
    if (opkit_bad_pow_any) {{
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        {sub['fail']}
    }}
}}
"""

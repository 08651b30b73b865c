"""C code of the reductions: one pass over the (elementwise-computed) values, blocked and pairwise.

The C is the macro `reduce` of opkit/templates/reduction.c.j2 (the fixed helpers it calls are the
support code of reduction.c); this module decides what goes in: names, C types, the reduced axes,
the accumulator, the elementwise program's steps (rendered by elemwise_c.program_statements).

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
side, without a branch, so the lanes vectorize. Their combine also orders +0 above -0,
and their finish makes any NaN the quiet NaN, so that max, min and integer sums and
products give the same bits in any order (order_free): a dense input is then read in
memory order whatever the order of its reduced axes (a Fortran-order matrix over every
axis is one contiguous run, not packed), and a plain float or integer max/min over
contiguous values is opkit_reduce_maxmin: 8 vectors of the widest registers the module
targets (SSE2, AVX or AVX-512), x86's max/min instructions, NaN flagged apart.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import render
from opkit.core.tensor.elementwise.elemwise_c import program_statements
from opkit.core.tensor.scalars.scalar_ops import has_c_dtype, program_operand_dtypes
from opkit.core.tensor.types.c_interface import c_dtype, c_typenum

LANES = 8  # accumulators of a leaf, as numpy's pairwise sum (max and min: 2 AVX vectors, in registers)

# kind -> the accumulator kinds (f(loat), i(nteger), b(ool)) it has a combine step for (templates/reduction.c.j2).
_COMBINED = {"sum": "fi", "mean": "f", "prod": "fi", "max": "fib", "min": "fib"}


def accumulator_dtype(kind, value_dtype, out_dtype):
    """Return the dtype the C loop accumulates in: uint64 for integer sums and products (they wrap)."""
    if kind in ("sum", "prod") and np.dtype(out_dtype).kind in "iu":
        return "uint64"
    if kind == "mean":
        return out_dtype
    return value_dtype if kind in ("max", "min") else out_dtype


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
            and _acc_kind(acc) in _COMBINED[op.kind]):
        return False
    operand_dtypes = program_operand_dtypes(program, [v.dtype for v in node.inputs])
    return all(s.has_c(d, loop) for (s, _, d), loop in zip(program, operand_dtypes))


def order_free(kind, acc):
    """Return True if the combine of `kind` on accumulator dtype `acc` gives the same bits in any order.

    max and min (float ones order +0 above -0 and make any NaN the quiet NaN), and integer sums and
    products (wrapping uint64 arithmetic). Float sums and products round, so their order is fixed.
    """
    return kind in ("max", "min") or (kind in ("sum", "prod") and np.dtype(acc).kind in "iu")


def reduce_c_code(op, node, inputs, outputs, sub):
    """Return the C code of a Reduce (or FusedReduce) node: templates/reduction.c.j2, macro `reduce`."""
    program, _ = op.reduce_program(node)
    nd = max(v.ndim for v in node.inputs)
    axes = op._axes(nd)
    out_dtype = node.outputs[0].dtype
    acc = np.dtype(accumulator_dtype(op.kind, _value_dtype(op, node), out_dtype))
    # inputs that are scalars by type: read once, before the loop
    scalar = [all(s == 1 for s in v.type.shape) for v in node.inputs]
    one_array = len(node.inputs) == 1 and not scalar[0]
    # a plain float or integer max/min (no elementwise program: it accumulates its input's dtype): its contiguous
    # leaves are opkit_reduce_maxmin (bool's max/min are `or`/`and`: the lanes' loop)
    simd = one_array and not program and op.kind in ("max", "min") and (
        (acc.kind == "f" and acc.itemsize in (4, 8)) or acc.kind in "iu")
    return render(
        "reduction.c.j2", "reduce",
        kind=op.kind, nd=nd, inputs=list(inputs), out=outputs[0], fail=sub["fail"], what=f"the inputs of {op}",
        reduced=[int(a in axes) for a in range(nd)], keepdims=bool(op.keepdims), out_ndim=node.outputs[0].ndim,
        out_typenum=c_typenum(out_dtype), out_t=c_dtype(out_dtype),
        acc_t=c_dtype(acc), acc_kind=acc.kind, acc_bits=acc.itemsize * 8,
        in_types=[c_dtype(v.dtype) for v in node.inputs], scalar=scalar,
        steps=program_statements(program, [v.dtype for v in node.inputs], scalar),
        test_nonzero=np.dtype(_value_dtype(op, node)).kind == "b" and acc != np.dtype(bool),
        packs=one_array, lanes=LANES, simd=simd, order_free=order_free(op.kind, acc))

"""C code of argmax and argmin: one pass, in memory order where the input is dense.

The answer (the first index of the extreme, or of the first NaN as numpy gives) does
not depend on the order the elements are visited in, so any cut of the work gives
the same index: threads take whole outputs, chunks of one output's elements, or
chunks of rows, and the partial answers are combined in index order (a later one
wins only if strictly better). Layouts are those of the reductions
(opkit_reduce_dense in reduction.c): a last axis reduced scans each output's
elements with numpy's own loop for the dtype (PyArray_ArgFunc: vectorized, and numpy's
answer by construction), threads taking outputs or chunks; a non-last axis scans rows
of adjacent outputs (a vector compare-and-blend of value and row index per output);
other layouts use the strided cursor.

The C is the macro `arg` of opkit/templates/reduction_arg.c.j2; this module decides what goes
in: names, the C type, the reduced axes, keepdims, whether NaN counts.
"""

from __future__ import annotations

import numpy as np

from opkit.core.c_source import render
from opkit.core.tensor.scalars.scalar_ops import has_c_dtype
from opkit.core.tensor.types.c_interface import c_dtype


def arg_has_c(op, node):
    """True for real and bool inputs with a C type (float16 and complex run numpy's)."""
    dtype = np.dtype(node.inputs[0].dtype)
    return dtype.kind in "biuf" and dtype != np.float16 and has_c_dtype(dtype)


def arg_c_code(op, node, inputs, outputs, sub):
    """Return the C code of an Argmax or Argmin node: templates/reduction_arg.c.j2, macro `arg`."""
    x, = inputs
    z, = outputs
    nd = node.inputs[0].ndim
    axes = op._axes(nd)
    return render("reduction_arg.c.j2", "arg", kind=op.kind, nd=nd, x=x, z=z, fail=sub["fail"],
                  reduced=[int(a in axes) for a in range(nd)], keepdims=bool(op.keepdims),
                  out_ndim=node.outputs[0].ndim, t=c_dtype(node.inputs[0].dtype),
                  is_float=np.dtype(node.inputs[0].dtype).kind == "f")

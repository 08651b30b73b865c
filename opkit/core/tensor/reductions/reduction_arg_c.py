"""What goes into the C of argmax and argmin: names, the C type, the reduced axes, keepdims, NaN.

The C, and how it visits the input, is the macro `arg` of opkit/templates/reduction_arg.c.j2.
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

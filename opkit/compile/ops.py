"""``theano.compile.ops`` under opkit: the built-in ops and the registration of their C code per Type.

A thin re-export of :mod:`opkit.core.builtin_ops` (and ``as_op``, PyTensor's ``wrap_py``), so that
``from theano.compile.ops import register_deep_copy_op_c_code`` ports as
``from opkit.compile.ops import register_deep_copy_op_c_code``.
"""

from opkit.core.builtin_ops import (
    DeepCopyOp,
    Shape,
    Shape_i,
    ViewOp,
    deep_copy_op,
    register_deep_copy_op_c_code,
    register_shape_c_code,
    register_shape_i_c_code,
    register_view_op_c_code,
    shape_op as shape,
    view_op,
)
from opkit.core.op import FromFunctionOp, as_op

wrap_py = as_op  # PyTensor's name of as_op (wrap_py(itypes, otypes, infer_shape=None))

__all__ = [
    "DeepCopyOp", "ViewOp", "Shape", "Shape_i", "deep_copy_op", "view_op", "shape",
    "register_deep_copy_op_c_code", "register_view_op_c_code", "register_shape_c_code", "register_shape_i_c_code",
    "as_op", "wrap_py", "FromFunctionOp",
]

"""opkit's own ops and types, registered through the same hooks as any op package.

The distribution `opkit-sdk` declares this module as its entry point `opkit` in the
group `opkit`, so the plugin path runs on every use of `opkit.ops`.
"""

from opkit.core import builtin_ops
from opkit.core.tensor.elementwise import basic
from opkit.core.tensor.reductions import reduction
from opkit.core.tensor.shapes.alloc import Alloc, DimShuffle
from opkit.core.tensor.shapes.reshape import Reshape
from opkit.core.tensor.types import c_interface
from opkit.core.tensor.types.type import TensorType, named_types
from opkit.gpu.ops import GPU_VERSIONS
from opkit.hookspecs import hookimpl

_TENSOR_OPS = ("add", "sub", "mul", "true_div", "neg", "exp", "log", "sqr", "sqrt", "maximum", "pow")
# every op name registered below (`opkit new` refuses a package that would shadow one)
_REDUCTIONS = {"sum": "Sum", "prod": "Prod", "max": "Max", "min": "Min", "mean": "Mean", "argmax": "Argmax",
               "argmin": "Argmin"}
# ops whose constructor takes arguments, registered with the ones `opkit show NAME` uses
_SHAPE_OPS = ("reshape", "transpose", "alloc")
BUILTIN_OP_NAMES = (*_TENSOR_OPS, *_REDUCTIONS, "dot", "shape", "deep_copy_op", "view_op", *_SHAPE_OPS)


@hookimpl
def register_ops(register):
    """Register the elementwise tensor ops, the reductions, Dot, reshape, transpose, alloc and the copy ops."""
    for name in _TENSOR_OPS:
        register(getattr(basic, name), name=name)
    for name, class_name in _REDUCTIONS.items():
        register(getattr(reduction, class_name), name=name)
    register(basic.Dot, name="dot")
    register(builtin_ops.Shape, name="shape")
    register(builtin_ops.DeepCopyOp, name="deep_copy_op")
    register(builtin_ops.ViewOp, name="view_op")
    register(Reshape(1), name="reshape")  # to a vector: opkit show reshape --dtypes float64,int64
    register(DimShuffle((1, 0)), name="transpose")  # of a matrix: --ndims 2
    register(Alloc(), name="alloc")  # a value broadcast to dims: --dtypes float64,int64 --ndims 0,0


@hookimpl
def register_types(register):
    """Register the named tensor types: dscalar, fvector, imatrix, ltensor4, ..."""
    for name, tensor_type in named_types().items():
        register(tensor_type, name=name)


@hookimpl
def register_c_code(registry):
    """Give DeepCopyOp, ViewOp, Shape and Shape_i C code for TensorType: section files in opkit/core/tensor."""
    files = c_interface.TENSOR_C_FILES
    registry.register_deep_copy_op_c_code(TensorType, files["deep_copy"], version=(1,))
    registry.register_view_op_c_code(TensorType, files["view"], version=(1,))
    registry.register_shape_c_code(TensorType, files["shape"], version=(1,))
    registry.register_shape_i_c_code(TensorType, files["shape_i"], files["shape_i_check"], version=(1,))


@hookimpl
def register_gpu_versions(register):
    """Register the GPU versions of Elemwise, the reductions, Dot and the gradients' shape ops (opkit.gpu.ops)."""
    for op_class, make_gpu_node in GPU_VERSIONS:
        register(op_class, make_gpu_node)

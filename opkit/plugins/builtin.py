"""opkit's own ops and types, registered through the same hooks as any op package.

The distribution `opkit-sdk` declares this module as its entry point `opkit` in the
group `opkit`, so the plugin path runs on every use of `opkit.ops`.
"""

from opkit.hookspecs import hookimpl

_TENSOR_OPS = ("add", "sub", "mul", "true_div", "neg", "exp", "log", "sqr", "sqrt", "maximum", "pow")
# every op name registered below (`opkit new` refuses a package that would shadow one)
_REDUCTIONS = {"sum": "Sum", "prod": "Prod", "max": "Max", "min": "Min", "mean": "Mean", "argmax": "Argmax",
               "argmin": "Argmin"}
BUILTIN_OP_NAMES = (*_TENSOR_OPS, *_REDUCTIONS, "dot", "shape", "deep_copy_op", "view_op")


@hookimpl
def register_ops(register):
    """Register the elementwise tensor ops, the reductions, Dot and the built-in shape and copy ops."""
    from opkit.core import builtin_ops
    from opkit.core.tensor import basic, reduction

    for name in _TENSOR_OPS:
        register(getattr(basic, name), name=name)
    for name, class_name in _REDUCTIONS.items():
        register(getattr(reduction, class_name), name=name)
    register(basic.Dot, name="dot")
    register(builtin_ops.Shape, name="shape")
    register(builtin_ops.DeepCopyOp, name="deep_copy_op")
    register(builtin_ops.ViewOp, name="view_op")


@hookimpl
def register_types(register):
    """Register the named tensor types: dscalar, fvector, imatrix, ltensor4, ..."""
    from opkit.core.tensor.type import named_types

    for name, tensor_type in named_types().items():
        register(tensor_type, name=name)


@hookimpl
def register_c_code(registry):
    """Give DeepCopyOp, ViewOp, Shape and Shape_i C code for TensorType."""
    from opkit.core.tensor import c_interface
    from opkit.core.tensor.type import TensorType

    registry.register_deep_copy_op_c_code(TensorType, c_interface.DEEP_COPY, version=(1,))
    registry.register_view_op_c_code(TensorType, c_interface.VIEW, version=(1,))
    registry.register_shape_c_code(TensorType, c_interface.SHAPE, version=(1,))
    registry.register_shape_i_c_code(TensorType, c_interface.SHAPE_I, c_interface.SHAPE_I_CHECK, version=(1,))

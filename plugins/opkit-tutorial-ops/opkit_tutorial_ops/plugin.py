"""Register the tutorials' ops and the double type (entry point `tutorial_ops` in the group `opkit`)."""

import opkit


@opkit.hookimpl
def register_types(register):
    """Register the double type as `double`."""
    from opkit_tutorial_ops.double import double

    register(double)


@opkit.hookimpl
def register_ops(register):
    """Register vector_times_scalar, double_op and double_add/sub/mul/div."""
    from opkit_tutorial_ops.double import add, div, mul, sub
    from opkit_tutorial_ops.double_op import DoubleOp
    from opkit_tutorial_ops.vector_times_scalar import VectorTimesScalar

    register(VectorTimesScalar)
    register(DoubleOp)
    # The tutorial names them add/sub/mul/div: opkit's own tensor ops own those names.
    for op in (add, sub, mul, div):
        register(op, name=f"double_{op.name}")


@opkit.hookimpl
def register_c_code(registry):
    """Give DeepCopyOp and ViewOp C code for doubles, so `function([x], x)` stays in C."""
    from opkit_tutorial_ops.double import Double

    registry.register_deep_copy_op_c_code(Double, "%(oname)s = %(iname)s;", version=(1,))
    registry.register_view_op_c_code(Double, "%(oname)s = %(iname)s;", version=(1,))
